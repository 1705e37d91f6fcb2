import Foundation
import Testing
import WebImage
import WebImageTestSupport

/// /info's `xmp`: the packet's properties by namespace prefix and name, against exiftool's
/// reading of the same packets; packets that are not XML give no field, never a crash.
@Suite(.offThePool) struct ImageInfoXMPTests {
    static func xmp(_ file: String) throws -> [String: [String: XMPValue]] {
        try #require(try ImageInfo(data: TestImages.data(file)).xmpProperties)
    }

    /// A Photoshop packet with attributes, a Seq of structures, a Bag and character references.
    @Test func photoshopPacketAgreesWithExiftool() async throws {
        let file = "photos/hubble_deep_field.jpg"
        let reference = try await Exiftool.tags(of: TestImages.url(file), specificGroups: true)
        let xmp = try Self.xmp(file)
        // exiftool's groups (XMP-dc …), but the packet wrapper's toolkit (XMP-x), which is no property.
        let groups = Set(reference.keys.filter { $0.hasPrefix("XMP-") }.compactMap { $0.split(separator: ":").first.map { String($0.dropFirst(4)) } })
        #expect(Set(xmp.keys) == groups.subtracting(["x"]), "\(xmp.keys.sorted()) against \(groups.sorted())")
        #expect(xmp["xmp"]?["CreatorTool"] == .text(try #require(reference["XMP-xmp:CreatorTool"])))
        #expect(xmp["dc"]?["format"] == .text(try #require(reference["XMP-dc:Format"])))
        #expect(xmp["xmpMM"]?["DocumentID"] == .text(try #require(reference["XMP-xmpMM:DocumentID"])))
        #expect(xmp["photoshop"]?["ColorMode"] == .text(try #require(reference["XMP-photoshop:ColorMode"])))
        let ancestors = Exiftool.list(reference["XMP-photoshop:DocumentAncestors"])
        #expect(xmp["photoshop"]?["DocumentAncestors"] == .array(ancestors.map(XMPValue.text)) && ancestors.count == 3)
        // The history: a Seq of structures, one an event exiftool lists an action of.
        guard case .array(let history)? = xmp["xmpMM"]?["History"] else {
            Issue.record("no history: \(String(describing: xmp["xmpMM"]))")
            return
        }
        let actions = Exiftool.list(reference["XMP-xmpMM:HistoryAction"])
        #expect(history.count == actions.count && actions.count > 30)
        #expect(history.map { event -> String? in
            guard case .structure(let fields) = event, case .text(let action)? = fields["action"] else { return nil }
            return action
        } == actions)
        // Tabs and line feeds written as &#x9; and &#xA; in the packet, as exiftool reads them.
        #expect(xmp["photoshop"]?["History"] == .text(try #require(reference["XMP-photoshop:History"])))
    }

    /// An empty Bag is an empty array; a file without a packet has no `xmp` field.
    @Test func emptyContainersAndNoPacket() throws {
        #expect(try Self.xmp("sdwebimage/TestEXIF.png") == ["dc": ["subject": .array([])]])
        let none = try ImageInfo(data: TestImages.data("photos/rocket.jpg"))
        #expect(none.xmp == nil && none.xmpProperties == nil)
        let json = try JSONSerialization.jsonObject(with: none.jsonData()) as? [String: Any]
        #expect(json?["xmp"] == nil && json?["width"] as? Int == 640)
    }

    /// Packets a hostile file could carry: cut, unbalanced, nested past the bound, with a DTD
    /// declaring entities: no properties (or only the plain ones), no crash, no entity expanded.
    @Test func packetsThatAreNotXMPGiveNoProperties() throws {
        var info = try ImageInfo(data: TestImages.data("photos/rocket.jpg"))
        let rdf = #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">"#
        for packet in [
            rdf + #"<rdf:Description xmp:Rating="5""#,
            rdf + "<rdf:Description><dc:title>cut",
            rdf + "</x:xmpmeta></rdf:RDF>",
            "<a>" + String(repeating: "<b>", count: 10_000) + String(repeating: "</b>", count: 10_000) + "</a>",
            "\u{0}\u{1}\u{2}<<<>>>&&&;",
        ] {
            info.xmp = packet
            #expect(info.xmpProperties == nil, "\(packet.prefix(80))")
            #expect(try info.jsonData().count > 0)
        }
        info.xmp = #"<!DOCTYPE x [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>"#
            + rdf + #"<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" dc:format="&lol2;&amp;&#x41;"/></rdf:RDF></x:xmpmeta>"#
        #expect(info.xmpProperties == ["dc": ["format": .text("&lol2;&A")]])
    }
}
