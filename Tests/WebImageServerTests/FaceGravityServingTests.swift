import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTestSupport

/// `gravity:obj:face` through the processor: a fill cut around the face.
@Suite(.offThePool) struct FaceGravityServingTests {
    /// A 100x300 fill of the astronaut (512x384, the face left of the centre) cut around the
    /// face, not where the centre's cut is.
    @Test func aFillIsCutAroundTheFace() async throws {
        let file = "faces/astronaut-1.jpg"
        let face = try await ProcessingTests.process(file, "rs:fill:100:300/g:obj:face/f:png")
        let centre = try await ProcessingTests.process(file, "rs:fill:100:300/f:png")
        #expect(face.pixelWidth == 100 && face.pixelHeight == 300)
        #expect(face.data != centre.data)
        // The cut holds the face: the detector finds it there again.
        let faces = try OpenCVFaceDetector.shared.faces(in: try ProcessingTests.decoded(face))
        #expect(faces.count == 1 && faces.allSatisfy { $0.pose == .frontal }, "\(faces)")
    }
}
