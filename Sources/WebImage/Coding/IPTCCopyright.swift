import Foundation

/// The copyright of an IPTC block, as imgproxy's `keep_copyright` keeps it: of the application
/// record (2), the By-line (80), Credit (110) and Copyright Notice (116) datasets alone; other
/// records kept with them (imgproxy keeps those without them too). The block is libvips' `iptc-data`: a JPEG's APP13 payload ("Photoshop 3.0\0",
/// then image resources, the IPTC one 0x0404), or IPTC-IIM datasets as they are (TIFF).
enum IPTCCopyright {
    private static let photoshopPrefix = Data("Photoshop 3.0\0".utf8)

    /// The block with only the copyright kept, in the same form; nil when it holds no copyright
    /// dataset or cannot be read.
    static func kept(_ iptc: Data) -> Data? {
        let bytes = [UInt8](iptc)
        guard iptc.starts(with: photoshopPrefix) else {
            return filtered(bytes[...]).map { Data($0) }
        }
        guard let resource = iptcResource(bytes, from: photoshopPrefix.count), let datasets = filtered(resource) else { return nil }
        // One resource: 8BIM, id 0x0404, an empty name (padded to 2 bytes), the size, the data padded to even.
        var block = [UInt8](photoshopPrefix) + Array("8BIM".utf8) + [0x04, 0x04, 0, 0]
        let size = datasets.count
        block += [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
        block += datasets
        if size % 2 == 1 { block.append(0) }
        return Data(block)
    }

    /// The data of the IPTC resource (0x0404) among the image resources from `start`.
    private static func iptcResource(_ bytes: [UInt8], from start: Int) -> ArraySlice<UInt8>? {
        var index = start
        while index + 12 <= bytes.count, bytes[index..<(index + 4)].elementsEqual("8BIM".utf8) {
            let id = Int(bytes[index + 4]) << 8 | Int(bytes[index + 5])
            // A Pascal name, its length byte counted, padded to an even length.
            let nameLength = Int(bytes[index + 6]) + 1
            let sizeAt = index + 6 + nameLength + nameLength % 2
            guard sizeAt + 4 <= bytes.count else { return nil }
            let size = bytes[sizeAt..<(sizeAt + 4)].reduce(0) { $0 << 8 | Int($1) }
            let data = sizeAt + 4
            guard size >= 0, data + size <= bytes.count else { return nil }
            if id == 0x0404 { return bytes[data..<(data + size)] }
            index = data + size + size % 2
        }
        return nil
    }

    /// The datasets of `iim` without the application record's other than the copyright ones;
    /// nil when no copyright dataset is among them or a dataset cannot be read.
    private static func filtered(_ iim: ArraySlice<UInt8>) -> [UInt8]? {
        var kept: [UInt8] = []
        var index = iim.startIndex
        var keptApplication = false
        while index < iim.endIndex {
            // A tag: 0x1C, record, dataset, then a 2-byte size (an extended size is not read).
            guard iim[index] == 0x1C, index + 5 <= iim.endIndex, iim[index + 3] & 0x80 == 0 else { return nil }
            let record = iim[index + 1], dataset = iim[index + 2]
            let end = index + 5 + (Int(iim[index + 3]) << 8 | Int(iim[index + 4]))
            guard end <= iim.endIndex else { return nil }
            let isCopyright = [80, 110, 116].contains(dataset)
            if record != 2 || isCopyright {
                kept += iim[index..<end]
                keptApplication = keptApplication || isCopyright && record == 2
            }
            index = end
        }
        return keptApplication ? kept : nil
    }
}
