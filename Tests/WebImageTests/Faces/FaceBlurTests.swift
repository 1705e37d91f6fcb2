import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// `FaceBlurTransformer`: the faces blurred, every other pixel as it was.
@Suite("Faces: blur", .offThePool) struct FaceBlurTests {
    /// The sum of absolute differences between horizontal neighbours inside `box` (RGB): a
    /// blur lowers it.
    static func roughness(_ image: WebImage.Image, in box: DetectedFace) throws -> Int {
        try image.withUnsafeRGBA8Bytes { bytes in
            var total = 0
            for y in box.y..<(box.y + box.height) {
                for x in box.x..<(box.x + box.width - 1) {
                    let offset = (y * image.pixelWidth + x) * 4
                    for channel in 0..<3 { total += abs(Int(bytes[offset + channel]) - Int(bytes[offset + 4 + channel])) }
                }
            }
            return total
        }
    }

    @Test func theFacesAreBlurredAndNothingElse() throws {
        let image = try TestImages.decoded(TestImages.data("photos/astronaut.png"))
        let faces = try OpenCVFaceDetector.shared.faces(in: image)
        let face = try #require(faces.first)
        try #require(faces.count == 1)
        let blurred = try #require(FaceBlurTransformer(sigma: 8).transformedImage(with: image, forKey: ""))
        #expect(blurred.pixelWidth == image.pixelWidth && blurred.pixelHeight == image.pixelHeight)
        // Inside the face: less than half the detail it had.
        #expect(try Self.roughness(blurred, in: face) * 2 < Self.roughness(image, in: face))
        // Outside it: every pixel the same.
        var changedOutside = 0
        var changedInside = 0
        for y in 0..<image.pixelHeight {
            for x in 0..<image.pixelWidth where blurred.pixel(x: x, y: y) != image.pixel(x: x, y: y) {
                let inside = x >= face.x && x < face.x + face.width && y >= face.y && y < face.y + face.height
                if inside { changedInside += 1 } else { changedOutside += 1 }
            }
        }
        #expect(changedOutside == 0 && changedInside > face.width * face.height / 2, "\(changedOutside) outside, \(changedInside) inside")
    }

    /// With no face the image is returned as it was.
    @Test func anImageWithoutFacesIsUnchanged() throws {
        let image = try TestImages.decoded(TestImages.data("photos/rocket.jpg"))
        let result = try #require(FaceBlurTransformer(sigma: 8).transformedImage(with: image, forKey: ""))
        #expect(result === image)
        #expect(FaceBlurTransformer(sigma: 8).transformerKey != FaceBlurTransformer(sigma: 9).transformerKey)
    }
}
