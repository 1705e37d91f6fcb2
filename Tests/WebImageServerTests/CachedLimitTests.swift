import Foundation
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer

/// A URL's own limits (`max_src_resolution`, `max_src_file_size`, `max_animation_frames`,
/// `max_animation_frame_resolution`, `max_result_dimension`) are not part of the result's key, so
/// the result a looser URL made is found by a stricter one: it answers as its making would have.
@Suite struct CachedLimitTests {
    /// A base path, and the same path with a limit the source (or the result) is over.
    static let cases: [(base: String, limited: String)] = [
        ("rs:fit:300:300/plain/local:///photos/rocket.jpg", "rs:fit:300:300/msr:0.1/plain/local:///photos/rocket.jpg"),
        ("rs:fit:300:300/plain/local:///photos/rocket.jpg", "rs:fit:300:300/msfs:100000/plain/local:///photos/rocket.jpg"),
        ("rs:fit:300:300/plain/local:///photos/rocket.jpg", "rs:fit:300:300/mrd:250/plain/local:///photos/rocket.jpg"),
        ("rs:fit:40:40/plain/local:///sdwebimage/TestImage.gif", "rs:fit:40:40/maf:4/plain/local:///sdwebimage/TestImage.gif"),
        ("rs:fit:40:40/plain/local:///sdwebimage/TestImage.gif", "rs:fit:40:40/mafr:0.002/plain/local:///sdwebimage/TestImage.gif"),
    ]

    static func start(cacheFolder: String? = nil) async throws -> ServerUnderTest {
        try await ServerUnderTest.start {
            $0.localFilesystemRoot = TestServer.imagesFolder.path
            $0.processing.allowSecurityOptions = true
            if let cacheFolder { $0.cacheDirectory = cacheFolder }
        }
    }

    @Test(arguments: cases) func aStricterURLIsRefusedWhetherTheResultIsCachedOrNot(base: String, limited: String) async throws {
        let server = try await Self.start()
        let uncached = try await server.get("/_/" + limited)
        let made = try await server.get("/_/" + base)
        let fromMemory = try await server.get("/_/" + limited)
        await server.stopKeepingCache()
        let restarted = try await Self.start(cacheFolder: server.cacheFolder)
        let fromDisk = try await restarted.get("/_/" + limited)
        let baseFromDisk = try await restarted.get("/_/" + base)
        await restarted.stop()

        #expect(uncached.status == 422)
        #expect(made.status == 200 && made.header("x-cache") == "miss")
        #expect(fromMemory.status == 422 && fromMemory.body == uncached.body)
        #expect(fromDisk.status == 422 && fromDisk.body == uncached.body)
        // The stricter URL's lookup brought the result into memory; it is still served to the looser one.
        #expect(baseFromDisk.status == 200 && ["memory", "disk"].contains(baseFromDisk.header("x-cache")))
    }
}
