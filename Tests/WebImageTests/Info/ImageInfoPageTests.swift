import Foundation
import ImageEngine
import Testing
import WebImage
import WebImageTestSupport

/// `page`: the size, colour facts and analyses of a page other than the first, an animation's
/// frame or a multi-page TIFF's page, checked against the library's own decode of that page.
@Suite(.offThePool) struct ImageInfoPageTests {
    static func options(page: Int) throws -> InfoOptions {
        try InfoOptions(parsing: "avg:1/th:1/cs:1/b:1/pn:1/page:\(page)")
    }

    @Test func anAnimationsPageIsItsFrame() throws {
        let data = try TestImages.data("sdwebimage/TestImage.gif")
        var animated = ImageCoderOptions()
        animated.decodeFirstFrameOnly = false
        let decoded = try ImageCodersManager.shared.decode(data, options: animated)
        let provider = try #require(decoded.animatedImageProvider)
        try #require(provider.animatedImageFrameCount == 5)
        var averages: [RGBA8] = []
        for page in 0..<5 {
            let info = try ImageInfo(data: data, options: try Self.options(page: page))
            #expect(info.pixelWidth == 50 && info.pixelHeight == 50 && info.pagesNumber == 5)
            let average = try #require(info.analyses.averageColor)
            let frame = try #require(provider.animatedImageFrame(at: page))
            let expected = try ImageAnalysis(image: frame).averageColor(ignoringTransparent: true)
            let difference = [average.red, average.green, average.blue].enumerated().map { abs(Int($0.element) - Int([expected.red, expected.green, expected.blue][$0.offset])) }
            #expect(difference.allSatisfy { $0 <= 3 }, "page \(page): \(average) against the frame's \(expected)")
            averages.append(average)
        }
        #expect(Set(averages.map { [$0.red, $0.green, $0.blue] }).count > 1, "the frames differ")
    }

    @Test func aTIFFsSecondPageIsReadWithItsOwnFields() throws {
        // rocket.jpg as a two-page TIFF: its top and bottom halves, 640x213 each.
        let photo = try ImageCodersManager.shared.decode(try TestImages.data("photos/rocket.jpg"), options: ImageCoderOptions())
        let strip = try VipsImageRef.load("jpegload_buffer", data: try TestImages.data("photos/rocket.jpg"))
            .extractingArea(x: 0, y: 0, width: 640, height: 426).withAnimation(pageHeight: 213, delays: [], loop: 0)
        let tiff = try strip.save("tiffsave_buffer")
        let info = try ImageInfo(data: tiff, options: try Self.options(page: 1))
        #expect(info.format == .tiff && info.pagesNumber == 2 && info.pixelWidth == 640 && info.pixelHeight == 213)
        #expect(info.colorspace == "srgb" && info.bands == 3)
        let bottom = try #require(CroppingTransformer(rect: CGRect(x: 0, y: 213, width: 640, height: 213)).transformedImage(with: photo, forKey: "bottom"))
        let expected = try ImageAnalysis(image: bottom).averageColor(ignoringTransparent: true)
        let average = try #require(info.analyses.averageColor)
        #expect(abs(Int(average.red) - Int(expected.red)) <= 3 && abs(Int(average.green) - Int(expected.green)) <= 3
            && abs(Int(average.blue) - Int(expected.blue)) <= 3, "\(average) against \(expected)")
        #expect(try ImageInfo(data: tiff, options: try Self.options(page: 0)).analyses.averageColor != average)
    }

    /// `detect_objects` on page 1 finds that page's faces: a two-page TIFF of astronaut.png
    /// upside down (no face found), then upright. The boxes are those the detector finds in the
    /// page decoded alone, in the page's pixels.
    @Test func objectsAreDetectedOnThePageAsked() throws {
        let data = try TestImages.data("photos/astronaut.png")
        let astronaut = try VipsImageRef.load("pngload_buffer", data: data)
        let pages = try VipsImageRef.joinVertically([astronaut.flipped(.vertical), astronaut])
            .withAnimation(pageHeight: astronaut.height, delays: [], loop: 0)
        let tiff = try pages.save("tiffsave_buffer")
        let expected = try OpenCVFaceDetector.shared.faces(in: ImageCodersManager.shared.decode(data, options: ImageCoderOptions()))
        try #require(expected.count == 1)
        let second = try ImageInfo(data: tiff, options: try InfoOptions(parsing: "do:1/page:1"))
        let objects = try #require(second.objects)
        #expect(second.pixelWidth == 512 && second.pixelHeight == 512)
        #expect(objects.count == 1 && objects.allSatisfy { face in expected.contains { $0.intersectionOverUnion(with: face) >= 0.5 } }, "\(objects) against \(expected)")
        #expect(try ImageInfo(data: tiff, options: try InfoOptions(parsing: "do:1/page:0")).objects == [])
    }

    @Test func aPagePastTheLastIsRefusedByItsCount() throws {
        let data = try TestImages.data("photos/rocket.jpg")
        #expect(throws: ImageInfoError.invalidOption("page 1: the image has 1 page")) { try ImageInfo(data: data, options: try Self.options(page: 1)) }
    }
}
