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
            // The declaration runs to the first '>' outside quotes: a quoted value may hold one.
            var quote: UInt8?
            var end = found.upperBound
            while end < data.endIndex {
                let byte = data[end]
                if let open = quote {
                    if byte == open { quote = nil }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                } else if byte == UInt8(ascii: ">") {
                    break
                }
                end += 1
            }
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
