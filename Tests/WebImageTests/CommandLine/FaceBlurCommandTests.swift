import Foundation
import Testing
import WebImage
import WebImageTestSupport

/// `webimage convert IN OUT --transform 'blur-faces=SIGMA'`: the faces blurred, the rest as it was.
@Suite(.offThePool) struct FaceBlurCommandTests {
    /// `input` converted to PNG with `transform`: the command's status and standard error, and
    /// the image written.
    static func convert(_ input: URL, transform: String) async throws -> (status: Int32, standardError: String, image: WebImage.Image?) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-blur-faces-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try await ChildProcess.run("webimage", ["convert", input.path, output.path, "--transform", transform])
        let image = try? TestImages.decoded(Data(contentsOf: output))
        return (result.status, result.standardError, image)
    }

    /// The astronaut's face (the one the detector finds in the decoded source) is blurred;
    /// every pixel outside it is the source's.
    @Test func theFaceIsBlurredAndNothingElse() async throws {
        let input = TestImages.url("faces/astronaut-1.jpg")
        let source = try TestImages.decoded(Data(contentsOf: input))
        let faces = try OpenCVFaceDetector.shared.faces(in: source)
        let face = try #require(faces.first)
        try #require(faces.count == 1)
        let converted = try await Self.convert(input, transform: "blur-faces=10")
        #expect(converted.status == 0, "\(converted.standardError)")
        let blurred = try #require(converted.image)
        #expect(blurred.pixelWidth == source.pixelWidth && blurred.pixelHeight == source.pixelHeight)
        let changes = try source.withUnsafeRGBA8Bytes { before in
            try blurred.withUnsafeRGBA8Bytes { after in BoxedChanges(before, after, width: source.pixelWidth, boxes: [(face.x, face.y, face.width, face.height)]) }
        }
        #expect(changes.outside == 0 && changes.inside > face.width * face.height / 2, "\(changes)")
    }

    /// A sigma that is not a number of 0 or more is refused, naming the step.
    @Test(arguments: ["blur-faces=-1", "blur-faces=soft", "blur-faces=1,2"])
    func aBadSigmaIsRefused(transform: String) async throws {
        let converted = try await Self.convert(TestImages.url("faces/astronaut-1.jpg"), transform: transform)
        #expect(converted.status != 0 && converted.standardError.contains("blur-faces"), "\(converted.status) \(converted.standardError)")
    }
}
