import Foundation
import Testing
import WebImage
import WebImageTestSupport

@Suite(.offThePool) struct ProgressiveTests {
    /// Feeds growing prefixes; returns the partial images seen and the final image.
    static func feed(_ data: Data, fractions: [Double]) -> (partials: [Image?], final: Image?) {
        let coder = ProgressiveVipsCoder(incrementalWithOptions: ImageCoderOptions())
        var partials: [Image?] = []
        for fraction in fractions {
            coder.updateIncrementalData(data.prefix(Int(Double(data.count) * fraction)), finished: false)
            partials.append(coder.incrementalDecodedImage(options: ImageCoderOptions()))
        }
        coder.updateIncrementalData(data, finished: true)
        return (partials, coder.incrementalDecodedImage(options: ImageCoderOptions()))
    }

    @Test(arguments: ["libjpeg-turbo/testimgint.jpg", "libjpeg-turbo/testorig.jpg", "pngsuite/ibasn2c08.png", "pngsuite/basn6a08.png", "sdwebimage/TestLoopCount.gif"])
    func givesPartialImagesThenTheWholeImage(file: String) throws {
        let data = try TestImages.data(file)
        let coder = ProgressiveVipsCoder()
        #expect(coder.canIncrementalDecode(from: data))
        let (partials, final) = Self.feed(data, fractions: [0.6, 0.9])
        let whole = try TestImages.decoded(data)
        for partial in partials {
            let image = try #require(partial, "a prefix of \(file) gives an image")
            #expect(image.isIncremental)
            #expect(image.pixelWidth == whole.pixelWidth && image.pixelHeight == whole.pixelHeight)
        }
        let finished = try #require(final)
        #expect(!finished.isIncremental)
        #expect(finished.pixel(x: whole.pixelWidth / 2, y: whole.pixelHeight - 1) == whole.pixel(x: whole.pixelWidth / 2, y: whole.pixelHeight - 1))
    }

    @Test func partialBaselineJPEGHasTheTopRowsRight() throws {
        let data = try TestImages.data("libjpeg-turbo/testorig.jpg")
        let whole = try TestImages.decoded(data)
        let (partials, _) = Self.feed(data, fractions: [0.7])
        let partial = try #require(partials.first ?? nil)
        #expect(partial.pixel(x: 10, y: 2) == whole.pixel(x: 10, y: 2))
    }

    @Test func interlacedPNGFillsInPassByPass() throws {
        let data = try TestImages.data("pngsuite/ibasn2c08.png")
        let whole = try TestImages.decoded(data)
        let (partials, _) = Self.feed(data, fractions: [0.5])
        let partial = try #require(partials.first ?? nil)
        // Adam7's first pass holds pixel (0, 0).
        #expect(partial.pixel(x: 0, y: 0) == whole.pixel(x: 0, y: 0))
    }

    /// Until image data follows the headers there is nothing to show: no image, not even an
    /// empty one of the right size.
    @Test(arguments: ["photos/rocket.jpg", "pngsuite/basn6a08.png"])
    func headerOnlyPrefixGivesNothingYet(file: String) throws {
        let data = try TestImages.data(file)
        let headerEnd = file.hasSuffix(".jpg")
            ? try JPEGSegments(Array(data)).scanStart
            : try #require(PngSuiteCorruptFiles.chunk("IDAT", in: data)).start
        let coder = ProgressiveVipsCoder(incrementalWithOptions: ImageCoderOptions())
        for end in [20, headerEnd] {
            coder.updateIncrementalData(data.prefix(end), finished: false)
            #expect(coder.incrementalDecodedImage(options: ImageCoderOptions()) == nil, "the first \(end) bytes of \(file)")
        }
        coder.updateIncrementalData(data, finished: true)
        let final = try #require(coder.incrementalDecodedImage(options: ImageCoderOptions()))
        let whole = try TestImages.decoded(data)
        #expect(!final.isIncremental && final.pixelWidth == whole.pixelWidth && final.pixelHeight == whole.pixelHeight)
    }
}
