import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTestSupport

/// The output format: decided before the source is known as far as it can be (the cache key,
/// `Vary: Accept`), then from the source's header.
@Suite(.offThePool) struct OutputFormatTests {
    static func header(_ name: String) throws -> ImageHeader {
        try ImageHeader(probing: try SourceImages.data(name))
    }

    static func plan(_ options: String = "", accept: String?, configuration: ProcessingConfiguration = .negotiating) throws -> OutputFormatPlan {
        let options = try ImgproxyURLParser(configuration: configuration).options(parsing: options)
        return OutputFormatPlan(options: options, accept: accept, configuration: configuration)
    }

    @Test func acceptPrefersAVIFThenWebPThenTheSourceFormat() throws {
        let rocket = try Self.header(SourceImages.rocket)
        let both = try Self.plan(accept: "image/avif,image/webp,image/*,*/*;q=0.8")
        #expect(try both.format(for: rocket) == .avif && both.variesWithAccept && both.cacheKey == "auto+avif+webp")
        #expect(try Self.plan(accept: "image/webp,*/*").format(for: rocket) == .webP)
        let none = try Self.plan(accept: nil)
        #expect(try none.format(for: rocket) == .jpeg && none.variesWithAccept && none.cacheKey == "auto")
        // Wildcards and q=0 do not count.
        #expect(try Self.plan(accept: "image/*").format(for: rocket) == .jpeg)
        #expect(try Self.plan(accept: "image/avif;q=0, image/webp").format(for: rocket) == .webP)
        // AVIF off: WebP.
        var configuration = ProcessingConfiguration.negotiating
        configuration.autoAVIF = false
        #expect(try Self.plan(accept: "image/avif,image/webp", configuration: configuration).format(for: rocket) == .webP)
        // Negotiation off: the source format, and no Vary.
        configuration.autoWebP = false
        let off = try Self.plan(accept: "image/avif,image/webp", configuration: configuration)
        #expect(try off.format(for: rocket) == .jpeg && !off.variesWithAccept && off.cacheKey == "auto")
        // Both off by default, as in imgproxy.
        let defaults = try Self.plan(accept: "image/avif,image/webp", configuration: ProcessingConfiguration())
        #expect(try defaults.format(for: rocket) == .jpeg && !defaults.variesWithAccept && defaults.cacheKey == "auto")
    }

    @Test func theURLsFormatWinsUnlessEnforced() throws {
        let rocket = try Self.header(SourceImages.rocket)
        let explicit = try Self.plan("f:png", accept: "image/avif,image/webp")
        #expect(try explicit.format(for: rocket) == .png && !explicit.variesWithAccept && explicit.cacheKey == "png")
        var configuration = ProcessingConfiguration()
        configuration.enforceWebP = true
        let enforced = try Self.plan("f:png", accept: "image/webp", configuration: configuration)
        #expect(try enforced.format(for: rocket) == .webP && enforced.variesWithAccept && enforced.cacheKey == "png+webp")
        #expect(try Self.plan("f:png", accept: nil, configuration: configuration).format(for: rocket) == .png)
    }

    @Test func animationsStayAnimatedInFormatsThatHoldThem() throws {
        let webp = try Self.header(SourceImages.animatedWebP)
        let gif = try Self.header(SourceImages.loopGIF)
        // No AVIF animation: WebP when accepted, else GIF (the first preferred format that animates).
        #expect(try Self.plan(accept: "image/avif,image/webp").format(for: gif) == .webP)
        #expect(try Self.plan(accept: "image/avif").format(for: webp) == .gif)
        #expect(try Self.plan(accept: nil).format(for: webp) == .gif)
        #expect(try Self.plan(accept: nil).format(for: gif) == .gif)
    }

    @Test func alphaAndVectorSourcesGetAFormatThatKeepsThem() throws {
        let svg = try Self.header("sdwebimage/TestImage.svg")
        #expect(try Self.plan(accept: nil).format(for: svg) == .png)
        #expect(try Self.plan("bg:fff", accept: nil).format(for: svg) == .jpeg)
        let webp = try Self.header("webp/lossy_alpha1.webp")
        #expect(try webp.hasAlpha && Self.plan(accept: nil).format(for: webp) == .png)
        // Padding adds transparency to an opaque source.
        #expect(try Self.plan("pd:10", accept: nil).format(for: try Self.header("sdwebimage/TestImageStatic.webp")) == .png)
        // SVG cannot be written: sources are rasterised, never passed through.
        #expect(throws: ImageServerError.self) { try Self.plan("f:svg", accept: nil).format(for: svg) }
        #expect(ImageServerError.unsupportedOutputFormat("svg").status == 422)
    }
}
