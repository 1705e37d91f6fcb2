import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// `FaceBoxDrawingTransformer`: each face's outline, and its label ("face 0.83") above the box,
/// or inside its top when there is no room above; every other pixel as it was.
@Suite("Faces: outlines and labels", .offThePool) struct FaceBoxDrawingTests {
    static let green = RGBA8(red: 0, green: 255, blue: 0)

    /// The changes from `image` to `drawn`, counted inside `boxes` and outside them.
    static func changes(from image: WebImage.Image, to drawn: WebImage.Image, boxes: [BoxedChanges.Box]) throws -> BoxedChanges {
        try image.withUnsafeRGBA8Bytes { before in
            try drawn.withUnsafeRGBA8Bytes { after in BoxedChanges(before, after, width: image.pixelWidth, boxes: boxes) }
        }
    }

    @Test func theLabelIsDrawnAboveTheBoxAndNothingElseChanges() throws {
        let image = try TestImages.decoded(TestImages.data("photos/astronaut.png"))
        let faces = try OpenCVFaceDetector.shared.faces(in: image)
        let face = try #require(faces.first)
        try #require(faces.count == 1 && face.y >= 24)
        let drawn = try #require(FaceBoxDrawingTransformer().transformedImage(with: image, forKey: ""))
        let band = BoxedChanges.labelBand(aboveBoxAt: face.x, face.y)
        // Nothing outside the box and the label's band changed.
        let changes = try Self.changes(from: image, to: drawn, boxes: [(face.x, face.y, face.width, face.height), band])
        #expect(changes.outside == 0, "\(changes)")
        // The band holds the label: the outline's green with dark text on it.
        var (greenPixels, darkPixels) = (0, 0)
        for y in band.y..<(band.y + band.height) {
            for x in band.x..<(band.x + band.width) {
                guard let pixel = drawn.pixel(x: x, y: y), pixel != image.pixel(x: x, y: y) else { continue }
                if pixel == Self.green { greenPixels += 1 }
                if pixel.green < 100 { darkPixels += 1 }
            }
        }
        #expect(greenPixels > 200 && darkPixels > 20, "\(greenPixels) green, \(darkPixels) dark pixels in the label")
        // The outline is still whole.
        #expect((face.x..<(face.x + face.width)).allSatisfy { drawn.pixel(x: $0, y: face.y + face.height - 1) == Self.green })
        #expect(FaceBoxDrawingTransformer.label(of: face).hasPrefix("face 0."))
    }

    /// A face at the top of the image, with no room above: the label goes inside the box's top.
    @Test func withoutRoomAboveTheLabelIsInsideTheBox() throws {
        let whole = try TestImages.decoded(TestImages.data("photos/astronaut.png"))
        let found = try #require(try OpenCVFaceDetector.shared.faces(in: whole).first)
        let top = try #require(CroppingTransformer(rect: CGRect(x: 0, y: found.y - 4, width: 512, height: 300)).transformedImage(with: whole, forKey: ""))
        let faces = try OpenCVFaceDetector.shared.faces(in: top)
        let face = try #require(faces.first)
        try #require(faces.count == 1 && face.y < 20, "\(faces)")
        let drawn = try #require(FaceBoxDrawingTransformer().transformedImage(with: top, forKey: ""))
        let changes = try Self.changes(from: top, to: drawn, boxes: [(face.x, face.y, face.width, face.height)])
        let outline = 2 * face.width + 2 * face.height - 8
        #expect(changes.outside == 0 && changes.inside > outline + 200, "\(changes)")
    }
}
