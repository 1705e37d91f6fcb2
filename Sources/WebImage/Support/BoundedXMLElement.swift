/// An element of a small XML document from outside (an XMP packet, an object store's listing),
/// read by `BoundedXMLElement.parse`: elements, attributes, text, CDATA, character references
/// and the five named entities, with no DTD, no entity of its own and no external reference, so
/// a document can make it read nothing but its own bytes; nesting and elements are bounded.
/// Ours rather than FoundationXML's `XMLParser`: that one hands libxml2 the bytes, and on
/// Linux leaks an error object (72 bytes) for every document libxml2 refuses.
package struct BoundedXMLElement: Sendable, Equatable {
    /// The qualified name as written: "rdf:Description".
    package var name: String
    package var attributes: [(name: String, value: String)] = []
    package var children: [BoundedXMLElement] = []
    /// The text directly inside, entities replaced.
    package var text = ""

    package static func == (lhs: BoundedXMLElement, rhs: BoundedXMLElement) -> Bool {
        lhs.name == rhs.name && lhs.children == rhs.children && lhs.text == rhs.text
            && lhs.attributes.map(\.name) == rhs.attributes.map(\.name) && lhs.attributes.map(\.value) == rhs.attributes.map(\.value)
    }

    package static let maxDepth = 64
    package static let maxElements = 100_000

    /// The value of the attribute `name`.
    package func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }

    /// Every element named `name` at any depth below this one (not inside one found).
    package func descendants(named name: String) -> [BoundedXMLElement] {
        children.flatMap { $0.name == name ? [$0] : $0.descendants(named: name) }
    }

    /// The document `text` as an element holding its top-level elements, nil when it is not
    /// well-formed enough to read or over the bounds.
    package static func parse(_ text: String) -> BoundedXMLElement? {
        var reader = Reader(bytes: Array(text.utf8))
        var root = BoundedXMLElement(name: "")
        guard reader.content(into: &root, depth: 0) else { return nil }
        return root
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        var elementCount = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        func starts(with prefix: String) -> Bool {
            bytes[index...].starts(with: prefix.utf8)
        }

        /// Moves past the next `terminator`; false when there is none.
        mutating func skip(past terminator: String) -> Bool {
            let pattern = Array(terminator.utf8)
            while index + pattern.count <= bytes.count {
                if bytes[index..<(index + pattern.count)].elementsEqual(pattern) {
                    index += pattern.count
                    return true
                }
                index += 1
            }
            return false
        }

        /// Reads text and elements into `parent` up to its end tag (the end of the input at depth 0).
        mutating func content(into parent: inout BoundedXMLElement, depth: Int) -> Bool {
            while index < bytes.count {
                guard bytes[index] == UInt8(ascii: "<") else {
                    let start = index
                    while index < bytes.count, bytes[index] != UInt8(ascii: "<") { index += 1 }
                    parent.text += Self.replacingEntities(bytes[start..<index])
                    continue
                }
                if starts(with: "</") {
                    // Only the open element's own end tag closes it.
                    index += 2
                    guard depth > 0, name() == parent.name else { return false }
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else { return false }
                    index += 1
                    return true
                } else if starts(with: "<?") {
                    guard skip(past: "?>") else { return false }
                } else if starts(with: "<!--") {
                    guard skip(past: "-->") else { return false }
                } else if starts(with: "<![CDATA[") {
                    index += 9
                    let start = index
                    guard skip(past: "]]>") else { return false }
                    parent.text += String(decoding: bytes[start..<(index - 3)], as: UTF8.self)
                } else if starts(with: "<!") {
                    // A DOCTYPE: skipped, none of its declarations used.
                    guard skip(past: ">") else { return false }
                } else {
                    elementCount += 1
                    guard depth < BoundedXMLElement.maxDepth, elementCount <= BoundedXMLElement.maxElements,
                          let (element, isEmpty) = startTag() else { return false }
                    var child = element
                    if !isEmpty {
                        guard content(into: &child, depth: depth + 1) else { return false }
                    }
                    parent.children.append(child)
                }
            }
            return depth == 0
        }

        /// A start tag from its `<`: the element, and whether it closes itself (`/>`).
        mutating func startTag() -> (BoundedXMLElement, Bool)? {
            index += 1
            var element = BoundedXMLElement(name: name())
            guard !element.name.isEmpty else { return nil }
            while true {
                skipSpace()
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: ">") {
                    index += 1
                    return (element, false)
                }
                if starts(with: "/>") {
                    index += 2
                    return (element, true)
                }
                let attribute = name()
                skipSpace()
                guard !attribute.isEmpty, index < bytes.count, bytes[index] == UInt8(ascii: "=") else { return nil }
                index += 1
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else { return nil }
                let quote = bytes[index]
                index += 1
                let start = index
                while index < bytes.count, bytes[index] != quote { index += 1 }
                guard index < bytes.count else { return nil }
                element.attributes.append((attribute, Self.replacingEntities(bytes[start..<index])))
                index += 1
            }
        }

        mutating func name() -> String {
            let start = index
            while index < bytes.count, !Self.isSpace(bytes[index]), ![UInt8(ascii: "/"), UInt8(ascii: ">"), UInt8(ascii: "=")].contains(bytes[index]) {
                index += 1
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func skipSpace() {
            while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
        }

        static func isSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }

        /// `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;` and character references replaced; any
        /// other `&` left as it is.
        static func replacingEntities(_ bytes: ArraySlice<UInt8>) -> String {
            let text = String(decoding: bytes, as: UTF8.self)
            guard text.contains("&") else { return text }
            var result = ""
            var rest = text[...]
            while let ampersand = rest.firstIndex(of: "&") {
                result += rest[..<ampersand]
                rest = rest[ampersand...]
                guard let semicolon = rest.prefix(12).firstIndex(of: ";") else {
                    result += "&"
                    rest = rest.dropFirst()
                    continue
                }
                let entity = rest[rest.index(after: rest.startIndex)..<semicolon]
                if let replacement = Self.character(entity) {
                    result.append(replacement)
                    rest = rest[rest.index(after: semicolon)...]
                } else {
                    result += "&"
                    rest = rest.dropFirst()
                }
            }
            return result + rest
        }

        static func character(_ entity: Substring) -> Character? {
            switch entity {
            case "amp": return "&"
            case "lt": return "<"
            case "gt": return ">"
            case "quot": return "\""
            case "apos": return "'"
            default:
                let code: UInt32?
                if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                    code = UInt32(entity.dropFirst(2), radix: 16)
                } else if entity.hasPrefix("#") {
                    code = UInt32(entity.dropFirst())
                } else {
                    code = nil
                }
                return code.flatMap(Unicode.Scalar.init).map(Character.init)
            }
        }
    }
}
