import Foundation

/// The IPTC-IIM datasets of an IPTC block as /info answers them, read as imgproxy reads them:
/// each tag a 0x1C byte (other bytes skipped), the record, the dataset and the value's size (two
/// bytes, or an extended size of four); a dataset /info does not name, or whose value is outside
/// its sizes, is left out; a repeatable one keeps every value, another its last.
struct IPTCDatasets: Sendable, Equatable {
    /// Values by tag title, in the order first seen.
    private(set) var titles: [String] = []
    private(set) var values: [String: (tag: IPTCTag, values: [ArraySlice<UInt8>])] = [:]

    static func == (lhs: IPTCDatasets, rhs: IPTCDatasets) -> Bool {
        lhs.titles == rhs.titles && lhs.titles.allSatisfy { lhs.values[$0]?.values == rhs.values[$0]?.values }
    }

    /// The datasets of `block` (libvips' `iptc-data`: `PhotoshopResources`); nil when it holds none.
    init?(_ block: Data) {
        guard let iim = PhotoshopResources.iptcDatasets(in: block) else { return nil }
        var index = iim.startIndex
        while iim.endIndex - index >= 5 {
            guard iim[index] == 0x1C else {
                index += 1
                continue
            }
            let (record, dataset) = (iim[index + 1], iim[index + 2])
            var size = Int(iim[index + 3]) << 8 | Int(iim[index + 4])
            index += 5
            if size >= 0x8000 {
                // An extended size: the count of its bytes, then the size itself.
                guard size & 0x7FFF == 4, iim.endIndex - index >= 4 else { break }
                size = iim[index..<(index + 4)].reduce(0) { $0 << 8 | Int($1) }
                index += 4
            }
            let value = iim[index..<min(iim.endIndex, index + size)]
            index = value.endIndex
            guard let tag = IPTCTag.tag(record: record, dataset: dataset), tag.sizes.contains(value.count) else { continue }
            if values[tag.title] == nil { titles.append(tag.title) }
            values[tag.title] = (tag, tag.repeatable ? (values[tag.title]?.values ?? []) + [value] : [value])
        }
        guard !titles.isEmpty else { return nil }
    }
}

extension IPTCDatasets: Encodable {
    /// /info's `iptc`: each title's value (an array of them for a repeatable dataset), and, as
    /// imgproxy adds them, `Name` (2:5, Object Name) and `Caption` (2:120, Caption/Abstract).
    func encode(to encoder: any Encoder) throws {
        var json = encoder.container(keyedBy: JSONKey.self)
        for title in titles {
            guard let (tag, found) = values[title], let first = found.first else { continue }
            if tag.repeatable {
                try json.encode(found.map { IPTCValue(tag: tag, bytes: $0) }, forKey: JSONKey(stringValue: title))
            } else {
                try json.encode(IPTCValue(tag: tag, bytes: first), forKey: JSONKey(stringValue: title))
            }
            if tag.record == 2, tag.dataset == 5 { try json.encode(IPTCValue(tag: tag, bytes: first), forKey: "Name") }
            if tag.record == 2, tag.dataset == 120 { try json.encode(IPTCValue(tag: tag, bytes: first), forKey: "Caption") }
        }
    }
}

/// One dataset's value as Go's JSON writes imgproxy's: a big-endian integer of its first four
/// bytes at most (three as 16 + 8 bits, as imgproxy reads them), text (bytes that are not UTF-8
/// replaced), or base64 bytes.
private struct IPTCValue: Encodable {
    let tag: IPTCTag
    let bytes: ArraySlice<UInt8>

    func encode(to encoder: any Encoder) throws {
        var json = encoder.singleValueContainer()
        switch tag.value {
        case .integer:
            let value = bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }
            try json.encode(value)
        case .text:
            try json.encode(String(decoding: bytes, as: UTF8.self))
        case .binary:
            try json.encode(Data(bytes).base64EncodedString())
        }
    }
}
