import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// Every analysis on the smallest and emptiest images, and sources that are not images.
@Suite("Analysis: hostile inputs", .offThePool) struct HostileInputAnalysisTests {
    /// Runs every analysis, with every argument's extremes.
    static func analyseEverything(_ analysis: ImageAnalysis) throws {
        _ = analysis.averageColor()
        _ = analysis.averageColor(ignoringTransparent: false)
        _ = analysis.dominantColors()
        _ = analysis.dominantColors(buildingMissing: true)
        _ = try analysis.palette(count: 2)
        _ = try analysis.palette(count: 256)
        for (x, y) in [(1, 1), (9, 9), (4, 3)] {
            let hash = try analysis.blurHash(xComponents: x, yComponents: y)
            _ = try Image(blurHash: hash, size: CGSize(width: 3, height: 2))
        }
        _ = Image(thumbHash: analysis.thumbHash)
        _ = analysis.perceptualHash
    }

    @Test func aOneByOneImage() throws {
        let color = RGBA8(red: 12, green: 200, blue: 99)
        let analysis = try ImageAnalysis(image: try AnalysisImages.image(width: 1, height: 1) { _, _ in color })
        try Self.analyseEverything(analysis)
        #expect(analysis.averageColor() == color)
        #expect(try analysis.palette(count: 4) == [color])
        #expect(try analysis.blurHash(xComponents: 1, yComponents: 1).averageColor.distance(to: color) <= 1)
        #expect(analysis.thumbHash.averageColor.distance(to: color) <= 12)
        // A 1x1 PNG file through the decoder too.
        let png = try #require(try AnalysisImages.image(width: 1, height: 1) { _, _ in color }.encodedData(format: .png))
        let decoded = try ImageAnalysis(data: png)
        #expect(decoded.pixelWidth == 1 && decoded.pixelHeight == 1 && decoded.averageColor() == color)
    }

    @Test func aFullyTransparentImage() throws {
        let analysis = try ImageAnalysis(image: try AnalysisImages.image(width: 9, height: 4) { x, _ in RGBA8(red: UInt8(x * 20), green: 0, blue: 0, alpha: 0) })
        try Self.analyseEverything(analysis)
        #expect(analysis.averageColor() == .clear)
        #expect(try analysis.palette(count: 8).isEmpty)
        let thumbHash = analysis.thumbHash
        #expect(thumbHash.hasAlpha && thumbHash.averageColor.alpha == 0)
        let placeholder = Image(thumbHash: thumbHash)
        let pixels = try AnalysisImages.rgba(placeholder)
        #expect(placeholder.hasAlpha && pixels.enumerated().allSatisfy { $0.offset % 4 != 3 || $0.element == 0 })
    }

    /// Long thin images: a side of one pixel after fitting.
    @Test(arguments: [(1000, 1), (1, 1000), (3, 700)])
    func thinImages(width: Int, height: Int) throws {
        let analysis = try ImageAnalysis(image: try AnalysisImages.image(width: width, height: height) { x, y in RGBA8(red: UInt8(x % 256), green: UInt8(y % 256), blue: 128) })
        #expect(max(analysis.pixelWidth, analysis.pixelHeight) == ImageAnalysis.thumbnailPixelSize && min(analysis.pixelWidth, analysis.pixelHeight) >= 1)
        try Self.analyseEverything(analysis)
    }

    /// Bytes that are no image, or a broken one, give `decoding` errors.
    @Test func sourcesThatAreNotImagesAreRefused() throws {
        let jpeg = try TestImages.data("photos/rocket.jpg")
        for data in [Data(), Data("hello".utf8), Data(repeating: 0, count: 100), jpeg.prefix(200)] {
            let error = #expect(throws: ImageAnalysisError.self) { try ImageAnalysis(data: data) }
            guard case .decoding = error else {
                Issue.record("\(data.count) bytes: \(String(describing: error))")
                continue
            }
        }
    }

    /// A large photo is analysed from its shrink-on-load thumbnail: 100 pixels on the long side,
    /// the aspect ratio kept; animations from their first frame.
    @Test func sourcesAreShrunkOnLoad() throws {
        let large = try AnalysisImages.analysis("sdwebimage/TestImageLarge.jpg")
        #expect(large.pixelWidth == 100 && large.pixelHeight == 66)
        let animated = try AnalysisImages.analysis("sdwebimage/TestImageAnimated.webp")
        #expect(max(animated.pixelWidth, animated.pixelHeight) == 100)
        let upright = try AnalysisImages.analysis("exif-orientation/Landscape_6.jpg")
        let stored = try AnalysisImages.analysis("exif-orientation/Landscape_1.jpg")
        #expect(upright.pixelWidth == stored.pixelWidth && upright.pixelHeight == stored.pixelHeight)
    }
}
