/// An XMP packet's properties as imgproxy's /info answers them: by namespace prefix as the
/// packet writes it ("dc", "xmp", "photoshop"), then the property's local name.
enum XMPProperties {
    /// The properties of every `rdf:Description` of `packet`'s `rdf:RDF`; nil when the packet
    /// cannot be read as XML.
    static func read(_ packet: String) -> [String: [String: XMPValue]]? {
        guard let document = BoundedXMLElement.parse(packet) else { return nil }
        var properties: [String: [String: XMPValue]] = [:]
        for rdf in document.descendants(named: "rdf:RDF") {
            for description in rdf.children where description.name == "rdf:Description" {
                for (name, value) in fields(of: description) {
                    guard let colon = name.firstIndex(of: ":") else { continue }
                    properties[String(name[..<colon]), default: [:]][String(name[name.index(after: colon)...])] = value
                }
            }
        }
        return properties
    }

    /// An element's properties by qualified name: its attributes (not `xmlns`, `rdf:` or
    /// `xml:` ones) and its child elements.
    private static func fields(of element: BoundedXMLElement) -> [(String, XMPValue)] {
        element.attributes.filter { isProperty($0.name) }.map { ($0.name, .text($0.value)) }
            + element.children.filter { isProperty($0.name) }.map { ($0.name, value(of: $0)) }
    }

    private static func isProperty(_ name: String) -> Bool {
        name.contains(":") && !name.hasPrefix("xmlns") && !name.hasPrefix("rdf:") && !name.hasPrefix("xml:")
    }

    /// A property element's value: a resource, a container's items, a structure, or its text.
    private static func value(of element: BoundedXMLElement) -> XMPValue {
        if let resource = element.attribute("rdf:resource") { return .text(resource) }
        if let container = element.children.first(where: { ["rdf:Bag", "rdf:Seq", "rdf:Alt"].contains($0.name) }) {
            return .array(container.children.filter { $0.name == "rdf:li" }.map(value(of:)))
        }
        let structure = element.attribute("rdf:parseType") == "Resource" ? element
            : element.children.first { $0.name == "rdf:Description" } ?? element
        let fields = fields(of: structure)
        guard !fields.isEmpty else { return .text(element.text) }
        return .structure(Dictionary(fields.map { name, value in (localName(name), value) }) { first, _ in first })
    }

    private static func localName(_ name: String) -> String {
        name.firstIndex(of: ":").map { String(name[name.index(after: $0)...]) } ?? name
    }
}
