import Foundation
import Testing
import WebImage
import WebImageTestSupport

/// `webimage convert --thumbnail WxH --gravity face`: the thumbnail covers the box and is cut
/// around the faces.
@Suite(.offThePool) struct FaceGravityCommandTests {
    /// The command's output is the library's crop around the faces of the shrunk image (made
    /// here the way the command makes it: lazily decoded, shrunk on load until it covers
    /// 100x300 and cut by `.faces`), and not the centre's cut: the astronaut's face is off the
    /// centre.
    @Test func aFaceThumbnailIsCutAroundTheFace() async throws {
        let input = TestImages.url("faces/astronaut-1.jpg")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-faces-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var outputs: [String: WebImage.Image] = [:]
        for gravity in ["face", "centre"] {
            let output = folder.appendingPathComponent("\(gravity).png")
            let result = try await ChildProcess.run("webimage", ["convert", input.path, output.path, "--thumbnail", "100x300", "--gravity", gravity])
            #expect(result.status == 0, "\(result.standardError)")
            outputs[gravity] = try TestImages.decoded(Data(contentsOf: output))
        }
        let face = try #require(outputs["face"])
        #expect(face.pixelWidth == 100 && face.pixelHeight == 300)

        var options = ImageCoderOptions()
        options.decodeUseLazyDecoding = true
        // 512x384 covering 100x300: 400x300, shrunk on load.
        options.decodeThumbnailPixelSize = CGSize(width: 400, height: 300)
        let shrunk = try ImageCodersManager.shared.decode(try Data(contentsOf: input), options: options)
        try #require(shrunk.pixelWidth == 400 && shrunk.pixelHeight == 300)
        let expected = try #require(GravityCroppingTransformer(size: CGSize(width: 100, height: 300), gravity: .faces).transformedImage(with: shrunk, forKey: ""))
        let bytes = { (image: WebImage.Image) throws -> [UInt8] in try image.withUnsafeRGBA8Bytes { Array($0) } }
        #expect(try bytes(face) == bytes(expected))
        #expect(try bytes(face) != bytes(try #require(outputs["centre"])))
        // The cut is the faces' (not attention's, the fallback): the shrunk image has one.
        #expect(try OpenCVFaceDetector.shared.faces(in: shrunk).count == 1)
    }

    /// An 18-megapixel JPEG, shrunk on load before it is cut, by each gravity (a lazy decode
    /// resized after decoding failed here: libvips' sequential reader read out of order).
    @Test(arguments: ["face", "smart", "centre"])
    func aLargeSourceIsShrunkOnLoadAndCut(gravity: String) async throws {
        let input = TestImages.url("sdwebimage/TestImageLarge.jpg")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-faces-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try await ChildProcess.run("webimage", ["convert", input.path, output.path, "--thumbnail", "300x300", "--gravity", gravity])
        #expect(result.status == 0, "\(result.standardError)")
        let thumbnail = try TestImages.decoded(Data(contentsOf: output))
        #expect(thumbnail.pixelWidth == 300 && thumbnail.pixelHeight == 300)
    }

    @Test func gravityWithoutAThumbnailIsAUsageError() async throws {
        let input = TestImages.url("faces/astronaut-1.jpg").path
        let result = try await ChildProcess.run("webimage", ["convert", input, "/tmp/never-written.png", "--gravity", "face"])
        #expect(result.status == 64 && result.standardError.contains("--gravity"), "\(result.status) \(result.standardError)")
    }
}
