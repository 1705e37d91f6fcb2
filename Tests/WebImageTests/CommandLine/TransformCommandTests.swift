import Foundation
import Testing
import WebImage
import WebImageTestSupport

/// `webimage convert --transform` and `webimage frames`, run as a user runs them.
@Suite(.offThePool) struct TransformCommandTests {
    static func scratch() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-transform-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func convertAppliesTheChainInOrder() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.png")
        let result = try await ChildProcess.run("webimage", [
            "convert", CommandLineToolTests.path("photos/rocket.jpg"), output.path,
            "--transform", "resize=300x200,cover;round=12,3,#ff0000;blur=1;rotate=90,fit",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let image = try TestImages.decoded(try Data(contentsOf: output))
        #expect(image.pixelWidth == 200 && image.pixelHeight == 300)
        #expect(image.pixel(x: 0, y: 0)?.alpha == 0 && image.pixel(x: 100, y: 150)?.alpha == 255)
    }

    @Test func convertTransformsEveryFrameOfAnAnimation() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.gif")
        let result = try await ChildProcess.run("webimage", [
            "convert", CommandLineToolTests.path("sdwebimage/TestImageAnimated.webp"), output.path, "--transform", "resize=100x100,fit;flip=h",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let image = try TestImages.decoded(try Data(contentsOf: output))
        #expect(image.frameCount == 8 && image.pixelWidth == 94 && image.pixelHeight == 100)
    }

    @Test func convertDrawsAWatermarkFromAFile() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A 50x25 opaque green mark.
        let green = RGBA8(red: 0, green: 255, blue: 0)
        let markImage = WebImage.Image(rgba8Pixels: [UInt8]((0..<50 * 25).flatMap { _ in [UInt8(0), 255, 0, 255] }), width: 50, height: 25)
        let mark = folder.appendingPathComponent("mark.png")
        try ImageCodersManager.shared.encode(try #require(markImage), format: .png, options: ImageCoderOptions()).write(to: mark)
        let output = folder.appendingPathComponent("out.png")
        let result = try await ChildProcess.run("webimage", [
            "convert", CommandLineToolTests.path("photos/rocket.jpg"), output.path, "--transform", "watermark=\(mark.path),1,soea,10,10,0.2",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let image = try TestImages.decoded(try Data(contentsOf: output))
        // Fitted into a fifth of 640x427 (128x85): 128x64, 10 pixels in from the bottom right.
        #expect(image.pixelWidth == 640 && image.pixelHeight == 427)
        #expect(image.pixel(x: 502, y: 353) == green && image.pixel(x: 629, y: 416) == green)
        #expect(image.pixel(x: 501, y: 353) != green && image.pixel(x: 630, y: 416) != green && image.pixel(x: 502, y: 352) != green)
    }

    @Test(arguments: [
        ("resize=300x200,fill;bogus=1;blur=2", "bogus=1"), ("watermark=/no/such/mark.png", "watermark=/no/such/mark.png"),
        ("watermark=mark.png,2", "watermark=mark.png,2"), ("watermark=mark.png,1,middle", "watermark=mark.png,1,middle"), ("resize=300", "resize=300"), ("crop=1,2,3", "crop=1,2,3"),
        ("blur=-1", "blur=-1"), ("tint=purple", "tint=purple"), ("round=4;;blur=1", ""), ("flip=x", "flip=x"),
    ])
    func aMalformedChainIsAOneLineErrorNamingTheStep(chain: String, step: String) async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.png")
        let result = try await ChildProcess.run("webimage", [
            "convert", CommandLineToolTests.path("photos/rocket.jpg"), output.path, "--transform", chain,
        ])
        #expect(result.status == 64)
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.contains("bad step '\(step)'") == true, "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func framesWritesEachFrameWithItsIndexAndDuration() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await ChildProcess.run("webimage", ["frames", CommandLineToolTests.path("sdwebimage/TestLoopCount.gif"), "-o", folder.path])
        #expect(result.status == 0, "\(result.standardError)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["frame-000-500ms.png", "frame-001-500ms.png"])
        let original = try TestImages.decoded(try TestImages.data("sdwebimage/TestLoopCount.gif"))
        let second = try TestImages.decoded(try Data(contentsOf: folder.appendingPathComponent(names[1])))
        #expect(try TransformInput.largestDifference(second, try #require(original.frame(at: 1))) == 0)
    }
}
