import Foundation

/// Entity declarations in an SVG's document type, checked before libxml2 (under librsvg)
/// parses the file. Plain ones pass: Illustrator declares its namespaces that way. Refused:
/// values that refer to other entities (how "billion laughs" files grow a few bytes into
/// gigabytes), parameter entities and external ones (SYSTEM, PUBLIC).
enum SVGEntities {
    /// Why the declarations in `data` are refused, or nil when they are not.
    static func refusal(in data: Data) -> String? {
        let marker = Data("<!ENTITY".utf8)
        var from = data.startIndex
        while let found = data.range(of: marker, in: from..<data.endIndex) {
            let end = SVGMarkup.tagEnd(in: data, from: found.upperBound)
            let declaration = String(decoding: data[found.upperBound..<end], as: UTF8.self)
            if declaration.contains("&") || declaration.contains("%") {
                return "an entity that refers to other entities (entity expansion)"
            }
            if declaration.contains("SYSTEM") || declaration.contains("PUBLIC") {
                return "an external entity"
            }
            from = end
        }
        return nil
    }
}

/// Reading SVG markup without a full XML parse.
enum SVGMarkup {
    /// Where a tag or declaration that runs on from `start` ends: its first '>' outside quotes
    /// (a quoted value may hold one), or `bytes.endIndex`.
    static func tagEnd<Bytes: RandomAccessCollection<UInt8>>(in bytes: Bytes, from start: Int) -> Int where Bytes.Index == Int {
        var quote: UInt8?
        var end = start
        while end < bytes.endIndex {
            let byte = bytes[end]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                break
            }
            end += 1
        }
        return end
    }
}
