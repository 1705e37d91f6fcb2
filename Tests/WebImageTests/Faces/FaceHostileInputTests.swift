import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// The face detector on the smallest, thinnest and over-limit inputs.
@Suite("Faces: hostile inputs", .offThePool) struct FaceHostileInputTests {
    /// Images too small or thin for the smallest face: no face, no failure.
    @Test(arguments: [(1, 1), (1000, 1), (1, 1000), (3, 700), (19, 19)])
    func tinyAndThinImagesHaveNoFaces(width: Int, height: Int) throws {
        let image = try AnalysisImages.image(width: width, height: height) { x, y in RGBA8(red: UInt8(x % 256), green: UInt8(y % 256), blue: 128) }
        #expect(try OpenCVFaceDetector.shared.faces(in: image).isEmpty)
    }

    /// Encoded data is decoded under the caller's decode limits: an image over the pixel limit
    /// is refused before any pixel is decoded or searched.
    @Test func dataOverTheDecodeLimitsIsRefused() throws {
        var options = ImageCoderOptions()
        options.decodeMaxPixelCount = 100_000
        let data = try TestImages.data("faces/astronaut-large-6.jpg")
        #expect {
            try OpenCVFaceDetector.shared.faces(in: data, options: options)
        } throws: { error in
            guard case .decoding = error as? FaceDetectionError else { return false }
            return true
        }
    }

    /// Bytes that are no image are a decoding error.
    @Test func bytesThatAreNoImageAreRefused() throws {
        #expect {
            try OpenCVFaceDetector.shared.faces(in: Data("not an image".utf8))
        } throws: { error in
            guard case .decoding = error as? FaceDetectionError else { return false }
            return true
        }
    }
}
