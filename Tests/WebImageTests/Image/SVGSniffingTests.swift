import Foundation
import Testing
import WebImage

/// SVG is text: it is detected by its first element, after whatever prolog XML allows.
@Suite struct SVGSniffingTests {
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

    /// Entity declarations are how "billion laughs" files expand: refused before libvips parses.
    @Test func anSVGDeclaringEntitiesIsRefused() throws {
        let laughs = "<?xml version=\"1.0\"?>\n<!DOCTYPE svg [\n  <!ENTITY lol \"lol\">\n  <!ENTITY lol2 \"&lol;&lol;&lol;&lol;\">\n]>\n"
        let data = try Self.svg(after: laughs)
        #expect(ImageFormat(sniffing: data) == .svg)
        #expect(throws: ImageCodingError.corruptData(format: .svg, reason: "entity declarations are refused (entity expansion)")) {
            try ImageCodersManager.shared.decode(data, options: ImageCoderOptions())
        }
        #expect(throws: ImageCodingError.self) { try ImageHeader(probing: data) }
    }
}
