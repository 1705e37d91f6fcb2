import Foundation
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// A URL's own source limits (`max_src_resolution`, `max_src_file_size`,
/// `max_animation_frame_resolution`) are not part of the result's key, so the result a looser URL
/// made is found by a stricter one: it answers as its making would have. `max_result_dimension`
/// shrinks the result and `max_animation_frames` keeps an animation's first frames only, so they
/// are part of the key: each limit has its own result.
@Suite(.offThePool) struct CachedLimitTests {
    /// A base path, and the same path with a limit the source (or the result) is over.
    static let cases: [(base: String, limited: String)] = [
        ("rs:fit:300:300/plain/local:///photos/rocket.jpg", "rs:fit:300:300/msr:0.1/plain/local:///photos/rocket.jpg"),
        ("rs:fit:300:300/plain/local:///photos/rocket.jpg", "rs:fit:300:300/msfs:100000/plain/local:///photos/rocket.jpg"),
        // 2 frames of 50x50 processed are 5000 pixels.
        ("rs:fit:40:40/maf:2/plain/local:///sdwebimage/TestImage.gif", "rs:fit:40:40/maf:2/msr:0.004/plain/local:///sdwebimage/TestImage.gif"),
        ("rs:fit:40:40/plain/local:///sdwebimage/TestImage.gif", "rs:fit:40:40/mafr:0.002/plain/local:///sdwebimage/TestImage.gif"),
    ]

    static func configuration(cacheFolder: String? = nil) -> ImageServerConfiguration {
        .underTest {
            $0.localFilesystemRoot = TestServer.imagesFolder.path
            $0.processing.allowSecurityOptions = true
            if let cacheFolder { $0.cacheDirectory = cacheFolder }
        }
    }

    @Test(arguments: cases) func aStricterURLIsRefusedWhetherTheResultIsCachedOrNot(base: String, limited: String) async throws {
        let first = Self.configuration()
        let (uncached, made, fromMemory) = try await withRunningServer(first, keepingCache: true) { server in
            (try await server.get("/_/" + limited), try await server.get("/_/" + base), try await server.get("/_/" + limited))
        }
        let (fromDisk, baseFromDisk) = try await withRunningServer(Self.configuration(cacheFolder: first.cacheDirectory)) { restarted in
            (try await restarted.get("/_/" + limited), try await restarted.get("/_/" + base))
        }

        #expect(uncached.status == 422)
        #expect(made.status == 200 && made.header("x-cache") == "miss")
        #expect(fromMemory.status == 422 && fromMemory.body == uncached.body)
        #expect(fromDisk.status == 422 && fromDisk.body == uncached.body)
        // The stricter URL's lookup brought the result into memory; it is still served to the looser one.
        #expect(baseFromDisk.status == 200 && ["memory", "disk"].contains(baseFromDisk.header("x-cache")))
    }

    /// A base path and its result's size and frames, and the same path with a limit that makes
    /// another result, and that one's.
    struct ResultLimitCase: Sendable, CustomTestStringConvertible {
        let base: String
        let whole: (width: Int, height: Int, frames: Int)
        let limited: String
        let cut: (width: Int, height: Int, frames: Int)
        var testDescription: String { limited }
    }

    static let resultLimitCases = [
        ResultLimitCase(
            base: "rs:fit:300:300/plain/local:///photos/rocket.jpg", whole: (300, 200, 1),
            limited: "rs:fit:300:300/mrd:250/plain/local:///photos/rocket.jpg", cut: (250, 167, 1)
        ),
        // TestImage.gif has 5 frames.
        ResultLimitCase(
            base: "rs:fit:40:40/plain/local:///sdwebimage/TestImage.gif", whole: (40, 40, 5),
            limited: "rs:fit:40:40/maf:3/plain/local:///sdwebimage/TestImage.gif", cut: (40, 40, 3)
        ),
    ]

    @Test(arguments: resultLimitCases) func aResultLimitHasItsOwnResultWhetherTheLooserOneIsCachedOrNot(limit: ResultLimitCase) async throws {
        let (base, limited) = (limit.base, limit.limited)
        let first = Self.configuration()
        let (uncached, made, fromMemory) = try await withRunningServer(first, keepingCache: true) { server in
            (try await server.get("/_/" + limited), try await server.get("/_/" + base), try await server.get("/_/" + limited))
        }
        let (fromDisk, baseFromDisk) = try await withRunningServer(Self.configuration(cacheFolder: first.cacheDirectory)) { restarted in
            (try await restarted.get("/_/" + limited), try await restarted.get("/_/" + base))
        }

        let cut = try ImageCodersManager.shared.decode(uncached.body, options: ImageCoderOptions())
        #expect(uncached.status == 200 && (cut.pixelWidth, cut.pixelHeight, cut.frameCount) == limit.cut)
        // The looser URL is made anew, not given the limited result, and the other way round.
        let whole = try ImageCodersManager.shared.decode(made.body, options: ImageCoderOptions())
        #expect(made.header("x-cache") == "miss" && (whole.pixelWidth, whole.pixelHeight, whole.frameCount) == limit.whole)
        #expect(fromMemory.header("x-cache") == "memory" && fromMemory.body == uncached.body)
        #expect(fromDisk.header("x-cache") == "disk" && fromDisk.body == uncached.body)
        #expect(baseFromDisk.status == 200 && baseFromDisk.body == made.body)
    }
}
