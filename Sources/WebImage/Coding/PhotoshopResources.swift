import Foundation

/// libvips' `iptc-data` of a JPEG: its APP13 payload ("Photoshop 3.0\0", then image resources,
/// "8BIM" each), whose IPTC-IIM datasets are resource 0x0404; other files' block is the datasets
/// as they are (TIFF).
enum PhotoshopResources {
    static let prefix = Data("Photoshop 3.0\0".utf8)

    /// The IPTC-IIM datasets of `block`: resource 0x0404's data when the block is Photoshop's,
    /// else the block itself; nil when the resources cannot be walked or hold no IPTC.
    static func iptcDatasets(in block: Data) -> ArraySlice<UInt8>? {
        let bytes = [UInt8](block)
        guard block.starts(with: prefix) else { return bytes[...] }
        var index = prefix.count
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
}
