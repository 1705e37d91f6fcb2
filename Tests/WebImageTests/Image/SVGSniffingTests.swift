import Foundation
import Testing
import WebImage
import WebImageTestSupport

/// SVG is text: it is detected by its first element, after whatever prolog XML allows.
@Suite(.offThePool) struct SVGSniffingTests {
    static func svg(after prolog: String) throws -> Data {
        Data(prolog.utf8) + (try TestImages.data("sdwebimage/TestImage.svg"))
    }

    @Test(arguments: [
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n",
        "\u{FEFF}<?xml version=\"1.0\"?>\n<!-- Generator: a drawing program -->\n",
        "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n",
        "<?xml version=\"1.0\"?>\n<!DOCTYPE svg [\n  <!ATTLIST svg id ID #IMPLIED>\n]>\n",
    ])
    func anSVGAfterAPrologIsAnSVG(prolog: String) throws {
        let data = try Self.svg(after: prolog)
        #expect(ImageFormat(sniffing: data) == .svg)
        // And libvips reads it as the file without a prolog.
        let image = try TestImages.decoded(data)
        let plain = try TestImages.decoded(try TestImages.data("sdwebimage/TestImage.svg"))
        #expect(image.pixelWidth == plain.pixelWidth && image.pixelHeight == plain.pixelHeight)
    }

    @Test func anHTMLPageWithAnInlineSVGIsNotAnSVG() throws {
        let svg = try #require(String(data: try TestImages.data("sdwebimage/TestImage.svg"), encoding: .utf8))
        let page = "<!DOCTYPE html>\n<html><head><title>Logo</title></head><body>\(svg)</body></html>\n"
        #expect(ImageFormat(sniffing: Data(page.utf8)) == .undefined)
    }

    @Test(arguments: ["<svgfoo></svgfoo>", "<?xml version=\"1.0\"?><!-- not closed", "<!-- <svg> in a comment -->\n<html/>"])
    func textThatOnlyMentionsSVGIsNotAnSVG(text: String) {
        #expect(ImageFormat(sniffing: Data(text.utf8)) == .undefined)
    }

    /// Entities that refer to others are how "billion laughs" files expand: refused before
    /// libxml2 parses, wherever they are declared.
    @Test(arguments: [
        "<?xml version=\"1.0\"?>\n<!DOCTYPE svg [\n  <!ENTITY lol \"lol\">\n  <!ENTITY lol2 \"&lol;&lol;&lol;&lol;\">\n]>\n",
        // "<svg" in a comment before the doctype, and a '>' inside the quoted value.
        "<?xml version=\"1.0\"?>\n<!-- <svg -->\n<!DOCTYPE svg [ <!ENTITY a \"x\"> <!ENTITY b \"a>&a;&a;\"> ]>\n",
        "<!DOCTYPE svg [ <!ENTITY % parameter \"x\"> ]>\n",
        "<!DOCTYPE svg [ <!ENTITY secret SYSTEM \"file:///etc/hostname\"> ]>\n",
    ])
    func anSVGWhoseEntitiesCouldExpandIsRefused(prolog: String) throws {
        let data = try Self.svg(after: prolog)
        #expect(ImageFormat(sniffing: data) == .svg)
        #expect {
            try ImageCodersManager.shared.decode(data, options: ImageCoderOptions())
        } throws: { error in
            guard case .corruptData(format: .svg, let reason) = error as? ImageCodingError else { return false }
            return reason.hasPrefix("refused: ")
        }
    }

    /// Illustrator declares its namespaces as plain entities: such files decode.
    @Test func anSVGWithPlainEntitiesDecodes() throws {
        let prolog = """
            <?xml version="1.0" encoding="utf-8"?>
            <!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd" [
            	<!ENTITY ns_extend "http://ns.adobe.com/Extensibility/1.0/">
            	<!ENTITY ns_ai "http://ns.adobe.com/AdobeIllustrator/10.0/">
            ] >

            """
        let image = try TestImages.decoded(try Self.svg(after: prolog))
        let plain = try TestImages.decoded(try TestImages.data("sdwebimage/TestImage.svg"))
        #expect(image.pixelWidth == plain.pixelWidth && image.pixelHeight == plain.pixelHeight)
        #expect(image.pixel(x: 40, y: 20) == plain.pixel(x: 40, y: 20))
    }
}
