import Foundation

/// The items of a HEIF file (ISO/IEC 23008-12) as its `meta` box describes them, read without
/// decoding: their types, references, properties and data. Anything malformed reads as absent:
/// libheif reports what it refuses.
struct HEIFFile {
    private let bytes: Data
    private(set) var primaryItem: UInt32?
    private var types: [UInt32: String] = [:]
    /// By item: its references, by type, in order (a reference may repeat).
    private var references: [UInt32: [String: [UInt32]]] = [:]
    /// Property boxes (type, body) in `ipco`'s order, and by item their 1-based indices.
    private var properties: [(type: String, body: Range<Int>)] = []
    private var associations: [UInt32: [Int]] = [:]
    /// By item: construction method and extents (offset, length) of its data.
    private var locations: [UInt32: (method: Int, extents: [(offset: Int, length: Int)])] = [:]
    private var itemDataBox: Range<Int>?

    init(_ data: Data) {
        bytes = Data(data)
        guard let meta = Self.boxes(in: bytes, 0..<bytes.count).first(where: { $0.type == "meta" }), meta.body.count >= 4 else { return }
        for box in Self.boxes(in: bytes, meta.body.lowerBound + 4..<meta.body.upperBound) {
            switch box.type {
            case "pitm": readPrimaryItem(box.body)
            case "iinf": readItemInfo(box.body)
            case "iref": readReferences(box.body)
            case "iprp": readProperties(box.body)
            case "iloc": readLocations(box.body)
            case "idat": itemDataBox = box.body
            default: break
            }
        }
    }

    func type(of item: UInt32) -> String? { types[item] }

    func references(from item: UInt32, type: String) -> [UInt32] {
        references[item]?[type] ?? []
    }

    /// Items with an alpha, depth (`auxl`) or thumbnail (`thmb`) reference to `item`.
    func items(referringTo item: UInt32) -> [UInt32] {
        references.compactMap { from, byType in
            (byType["auxl"] ?? []).contains(item) || (byType["thmb"] ?? []).contains(item) ? from : nil
        }.sorted()
    }

    /// The body of the item's first property of `type`.
    func property(_ type: String, of item: UInt32) -> Data? {
        for index in associations[item] ?? [] where index >= 1 && index <= properties.count {
            let property = properties[index - 1]
            if property.type == type { return bytes[property.body] }
        }
        return nil
    }

    /// The number of bytes of the item's data (`data(of:)`), without reading it.
    func dataCount(of item: UInt32) -> Int {
        locations[item]?.extents.reduce(0) { $0.addingReportingOverflow($1.length).overflow ? .max : $0 + $1.length } ?? 0
    }

    /// The size its `ispe` property declares.
    func imageSpatialExtent(of item: UInt32) -> (width: Int, height: Int)? {
        guard let body = property("ispe", of: item), body.count >= 12 else { return nil }
        return (Int(Self.integer(body, body.startIndex + 4, 4)), Int(Self.integer(body, body.startIndex + 8, 4)))
    }

    /// The item's data: its extents in the file (or in `idat`), those that lie within it.
    func data(of item: UInt32) -> Data {
        guard let location = locations[item] else { return Data() }
        let base: Range<Int>
        switch location.method {
        case 0: base = 0..<bytes.count
        case 1: guard let itemDataBox else { return Data() }; base = itemDataBox
        default: return Data()
        }
        var data = Data()
        for extent in location.extents {
            let start = base.lowerBound.addingReportingOverflow(extent.offset)
            guard !start.overflow, extent.length >= 0, start.partialValue <= base.upperBound,
                  extent.length <= base.upperBound - start.partialValue else { continue }
            data += bytes[start.partialValue..<(start.partialValue + extent.length)]
        }
        return data
    }

    // MARK: Reading the boxes

    /// The boxes in `range`: their types and bodies; a box running past the range ends the list.
    static func boxes(in data: Data, _ range: Range<Int>) -> [(type: String, body: Range<Int>)] {
        var result: [(type: String, body: Range<Int>)] = []
        var at = range.lowerBound
        while at <= range.upperBound - 8 {
            var size = Int(integer(data, at, 4))
            var header = 8
            if size == 1 {
                guard at <= range.upperBound - 16 else { break }
                let large = integer(data, at + 8, 8)
                guard large <= UInt64(Int.max) else { break }
                size = Int(large)
                header = 16
            } else if size == 0 {
                size = range.upperBound - at
            }
            guard size >= header, size <= range.upperBound - at else { break }
            let type = String(decoding: data[(at + 4)..<(at + 8)], as: UTF8.self)
            result.append((type, (at + header)..<(at + size)))
            at += size
        }
        return result
    }

    /// The big-endian unsigned integer of `size` bytes at `at`, 0 past the data's end.
    static func integer(_ data: Data, _ at: Int, _ size: Int) -> UInt64 {
        guard size > 0, at >= data.startIndex, at <= data.endIndex - size else { return 0 }
        return (0..<size).reduce(0) { $0 << 8 | UInt64(data[at + $1]) }
    }

    /// A full box's version, and the offset of what follows its version and flags.
    private func fullBox(_ body: Range<Int>) -> (version: Int, start: Int)? {
        body.count >= 4 ? (Int(bytes[body.lowerBound]), body.lowerBound + 4) : nil
    }

    private mutating func readPrimaryItem(_ body: Range<Int>) {
        guard let (version, start) = fullBox(body) else { return }
        let size = version == 0 ? 2 : 4
        guard start + size <= body.upperBound else { return }
        primaryItem = UInt32(Self.integer(bytes, start, size))
    }

    private mutating func readItemInfo(_ body: Range<Int>) {
        guard let (version, start) = fullBox(body) else { return }
        let countSize = version == 0 ? 2 : 4
        guard start + countSize <= body.upperBound else { return }
        for entry in Self.boxes(in: bytes, (start + countSize)..<body.upperBound) where entry.type == "infe" {
            // Versions 2 and 3 carry the item type: the ID (2 or 4 bytes), the protection index, the type.
            guard let (entryVersion, at) = fullBox(entry.body), entryVersion >= 2 else { continue }
            let idSize = entryVersion == 2 ? 2 : 4
            guard at + idSize + 6 <= entry.body.upperBound else { continue }
            let item = UInt32(Self.integer(bytes, at, idSize))
            types[item] = String(decoding: bytes[(at + idSize + 2)..<(at + idSize + 6)], as: UTF8.self)
        }
    }

    private mutating func readReferences(_ body: Range<Int>) {
        guard let (version, start) = fullBox(body) else { return }
        let idSize = version == 0 ? 2 : 4
        for reference in Self.boxes(in: bytes, start..<body.upperBound) {
            var at = reference.body.lowerBound
            guard at + idSize + 2 <= reference.body.upperBound else { continue }
            let from = UInt32(Self.integer(bytes, at, idSize))
            let count = Int(Self.integer(bytes, at + idSize, 2))
            at += idSize + 2
            guard count <= (reference.body.upperBound - at) / idSize else { continue }
            let targets = (0..<count).map { UInt32(Self.integer(bytes, at + $0 * idSize, idSize)) }
            references[from, default: [:]][reference.type, default: []] += targets
        }
    }

    private mutating func readProperties(_ body: Range<Int>) {
        for box in Self.boxes(in: bytes, body) {
            if box.type == "ipco" {
                properties = Self.boxes(in: bytes, box.body)
            } else if box.type == "ipma", let (version, start) = fullBox(box.body) {
                let flags = Self.integer(bytes, box.body.lowerBound + 1, 3)
                let idSize = version < 1 ? 2 : 4
                let indexSize = flags & 1 == 1 ? 2 : 1
                let count = Int(Self.integer(bytes, start, 4))
                var at = start + 4
                for _ in 0..<min(count, box.body.count) {
                    guard at + idSize + 1 <= box.body.upperBound else { break }
                    let item = UInt32(Self.integer(bytes, at, idSize))
                    let associationCount = Int(bytes[at + idSize])
                    at += idSize + 1
                    guard at + associationCount * indexSize <= box.body.upperBound else { break }
                    // The top bit of each says whether the property is essential.
                    let mask: UInt64 = indexSize == 2 ? 0x7FFF : 0x7F
                    associations[item, default: []] += (0..<associationCount).map {
                        Int(Self.integer(bytes, at + $0 * indexSize, indexSize) & mask)
                    }
                    at += associationCount * indexSize
                }
            }
        }
    }

    private mutating func readLocations(_ body: Range<Int>) {
        guard let (version, start) = fullBox(body), version <= 2, start + 2 <= body.upperBound else { return }
        let offsetSize = Int(bytes[start] >> 4), lengthSize = Int(bytes[start] & 15)
        let baseOffsetSize = Int(bytes[start + 1] >> 4), indexSize = version == 0 ? 0 : Int(bytes[start + 1] & 15)
        let sizes = [0, 4, 8]
        guard sizes.contains(offsetSize), sizes.contains(lengthSize), sizes.contains(baseOffsetSize), sizes.contains(indexSize) else { return }
        let idSize = version < 2 ? 2 : 4
        var at = start + 2
        guard at + idSize <= body.upperBound else { return }
        let count = Int(Self.integer(bytes, at, idSize))
        at += idSize
        for _ in 0..<min(count, body.count) {
            let fixed = idSize + (version == 0 ? 0 : 2) + 2 + baseOffsetSize + 2
            guard at + fixed <= body.upperBound else { return }
            let item = UInt32(Self.integer(bytes, at, idSize))
            at += idSize
            var method = 0
            if version > 0 {
                method = Int(Self.integer(bytes, at, 2) & 15)
                at += 2
            }
            at += 2  // data reference index
            let base = Self.integer(bytes, at, baseOffsetSize)
            at += baseOffsetSize
            let extentCount = Int(Self.integer(bytes, at, 2))
            at += 2
            let extentSize = indexSize + offsetSize + lengthSize
            guard extentCount * extentSize <= body.upperBound - at else { return }
            var extents: [(offset: Int, length: Int)] = []
            for _ in 0..<extentCount {
                at += indexSize
                let offset = base.addingReportingOverflow(Self.integer(bytes, at, offsetSize))
                let length = Self.integer(bytes, at + offsetSize, lengthSize)
                at += offsetSize + lengthSize
                guard !offset.overflow, offset.partialValue <= UInt64(Int.max), length <= UInt64(Int.max) else { continue }
                extents.append((Int(offset.partialValue), Int(length)))
            }
            locations[item] = (method, extents)
        }
    }
}
