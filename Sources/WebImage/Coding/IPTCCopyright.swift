import Foundation

/// The copyright of an IPTC block, as imgproxy's `keep_copyright` keeps it: of the application
/// record (2), the By-line (80), Credit (110) and Copyright Notice (116) datasets alone; other
/// records kept with them (imgproxy keeps those without them too). The block is libvips'
/// `iptc-data` (`PhotoshopResources`).
enum IPTCCopyright {
    /// The block with only the copyright kept, in the same form; nil when it holds no copyright
    /// dataset or cannot be read.
    static func kept(_ iptc: Data) -> Data? {
        guard let iim = PhotoshopResources.iptcDatasets(in: iptc), let datasets = filtered(iim) else { return nil }
        guard iptc.starts(with: PhotoshopResources.prefix) else { return Data(datasets) }
        // One resource: 8BIM, id 0x0404, an empty name (padded to 2 bytes), the size, the data padded to even.
        var block = [UInt8](PhotoshopResources.prefix) + Array("8BIM".utf8) + [0x04, 0x04, 0, 0]
        let size = datasets.count
        block += [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
        block += datasets
        if size % 2 == 1 { block.append(0) }
        return Data(block)
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
