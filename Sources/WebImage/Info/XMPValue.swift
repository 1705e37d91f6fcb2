/// A property of an XMP packet as imgproxy's /info answers it: a text, an array (an
/// `rdf:Bag`, `rdf:Seq` or `rdf:Alt`'s items) or a structure (its fields by local name).
public indirect enum XMPValue: Sendable, Equatable, Encodable {
    /// A simple property, or an attribute: its text, entities replaced.
    case text(String)
    /// A Bag, Seq or Alt: its items in order.
    case array([XMPValue])
    /// A structure: its fields by local name.
    case structure([String: XMPValue])

    /// A JSON string, array or object.
    public func encode(to encoder: any Encoder) throws {
        var json = encoder.singleValueContainer()
        switch self {
        case .text(let text): try json.encode(text)
        case .array(let items): try json.encode(items)
        case .structure(let fields): try json.encode(fields)
        }
    }
}
