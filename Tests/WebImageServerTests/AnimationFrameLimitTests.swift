import Foundation
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// `max_animation_frames` (`maf`) and `MAX_ANIMATION_FRAMES` over HTTP, as imgproxy has them: an
/// animation's first frames are processed, with their delays and its loop count, the others
/// dropped; the resolution limits count the frames processed, and still refuse.
@Suite(.offThePool) struct AnimationFrameLimitTests {
    /// 24 frames of 14x25 (350 pixels), 70 ms each, looping forever.
    static let gif = "photos/no_time_for_that_tiny.gif"

    static func configuration(_ configure: (inout ImageServerConfiguration) -> Void = { _ in }) -> ImageServerConfiguration {
        .underTest {
            $0.localFilesystemRoot = TestServer.imagesFolder.path
            $0.processing.allowSecurityOptions = true
            configure(&$0)
        }
    }

    static func decoded(_ data: Data) throws -> WebImage.Image {
        try ImageCodersManager.shared.decode(data, options: ImageCoderOptions())
    }

    @Test func anAnimationIsCutToItsFirstFrames() async throws {
        let source = try Self.decoded(try Data(contentsOf: TestServer.imagesFolder.appendingPathComponent(Self.gif)))
        try await withRunningServer(Self.configuration()) { server in
            let whole = try await server.get("/_/plain/local:///\(Self.gif)")
            let wholeResult = try Self.decoded(whole.body)
            #expect(whole.status == 200 && wholeResult.frameCount == 24)
            for (maf, frames) in [(5, 5), (23, 23), (24, 24), (100, 24), (1, 1)] {
                let reply = try await server.get("/_/maf:\(maf)/plain/local:///\(Self.gif)")
                let result = try Self.decoded(reply.body)
                #expect(reply.status == 200 && result.format == .gif && result.frameCount == frames, "maf:\(maf)")
                #expect(result.pixelWidth == 14 && result.pixelHeight == 25)
                guard frames > 1 else { continue }
                #expect(result.loopCount == source.loopCount)
                #expect((0..<frames).map { result.frameDuration(at: $0) } == (0..<frames).map { source.frameDuration(at: $0) })
                // The frames kept are the whole animation's first ones.
                for index in 0..<frames {
                    let (frame, wholeFrame) = (try #require(result.frame(at: index)), try #require(wholeResult.frame(at: index)))
                    #expect(try PixelComparison.largestDifference(frame, wholeFrame) == 0, "maf:\(maf) frame \(index)")
                }
            }
        }
    }

    @Test func theSettingCutsEveryAnimationAndTheURLOverridesIt() async throws {
        try await withRunningServer(Self.configuration { $0.processing.maxAnimationFrames = 5 }) { server in
            let cut = try await server.get("/_/plain/local:///\(Self.gif)")
            let longer = try await server.get("/_/maf:7/plain/local:///\(Self.gif)")
            #expect(try Self.decoded(cut.body).frameCount == 5 && Self.decoded(longer.body).frameCount == 7)
        }
    }

    @Test func theResolutionLimitsCountTheFramesProcessed() async throws {
        try await withRunningServer(Self.configuration()) { server in
            // 2000 pixels: 5 frames of 350 are within it, 6 are not, nor the whole 24.
            for (options, status) in [("msr:0.002/maf:5", 200), ("msr:0.002/maf:6", 422), ("msr:0.002", 422), ("msr:0.0003/maf:1", 422)] {
                let reply = try await server.get("/_/\(options)/plain/local:///\(Self.gif)")
                #expect(reply.status == status, "\(options)")
            }
            // Frames of more than 300 pixels, however few.
            for options in ["mafr:0.0003/maf:2", "mafr:0.0003/maf:24"] {
                #expect(try await server.get("/_/\(options)/plain/local:///\(Self.gif)").status == 422, "\(options)")
            }
            #expect(try await server.get("/_/mafr:0.0004/maf:2/plain/local:///\(Self.gif)").status == 200)
        }
    }
}
