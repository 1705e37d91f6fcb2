import Foundation
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

extension Heavy {
    /// Issue 20: a 60 MP source under the default 50 MP limit is 422 without its pixels decoded,
    /// measured on `webimage serve` as a process of its own (the peak of its resident memory), so
    /// the suite's other work does not count.
    @Suite(.offThePool, .timeLimit(.minutes(TestAllowance.minutes(5)))) struct SourceMemoryTests {
        @Test func aSixtyMegapixelPhotoIs422AndThePeakStaysWithin100MBOfIdle() async throws {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-source-memory-" + UUID().uuidString)
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: root) }
            // rocket.jpg resized to 10000x6000 and written as a PNG (no shrink on load: decoding it
            // whole would take 240 MB as RGBA).
            let rocket = try Data(contentsOf: TestServer.imagesFolder.appendingPathComponent("photos/rocket.jpg"))
            let big = try await BlockingPool.run {
                let image = try ImageCodersManager.shared.decode(rocket, options: ImageCoderOptions())
                let resized = ResizingTransformer(size: CGSize(width: 10_000, height: 6_000), scaleMode: .fill)
                    .transformedImage(with: image, forKey: "")
                return try #require(resized?.encodedData(format: .png))
            }
            try big.write(to: root.appendingPathComponent("sixty-megapixels.png"))
            try rocket.write(to: root.appendingPathComponent("rocket.jpg"))

            try await withServeProcess(["--local-filesystem-root", root.path, "--cache-dir", root.appendingPathComponent("cache").path]) { server in
                // Warm: the libraries loaded and a thumbnail made, so that idle is the working server.
                let warm = try await ServerUnderTest.get("/unsafe/rs:fit:300:200/plain/local:///rocket.jpg@jpg", port: server.port)
                #expect(warm.status == 200)
                let idle = try Self.statusField("VmRSS:", of: server.processIdentifier)
                try "5".write(toFile: "/proc/\(server.processIdentifier)/clear_refs", atomically: false, encoding: .utf8)

                let reply = try await ServerUnderTest.get("/unsafe/rs:fit:300:200/plain/local:///sixty-megapixels.png@jpg", port: server.port)
                let peak = try Self.statusField("VmHWM:", of: server.processIdentifier)
                #expect(reply.status == 422 && reply.body == Data("Source image is too large\n".utf8))
                #expect(peak - idle < TestAllowance.bytes(100 << 20), "peak \(peak >> 20) MB against \(idle >> 20) MB idle; the file \(big.count >> 20) MB")

                server.signal(SIGTERM)
                #expect(await server.exitStatus() == 0)
            }
        }

        /// A field of /proc/PID/status, in bytes.
        private static func statusField(_ name: String, of pid: Int32) throws -> Int {
            let text = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
            let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(name) })
            return try #require(line.split(separator: " ").compactMap { Int($0) }.first) * 1024
        }
    }
}
