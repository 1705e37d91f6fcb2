import Foundation
import Testing
import WebImage
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

@Suite(.offThePool) struct LocalSourceRootTests {
    @Test func filesUnderTheRootAreReadAndNothingOutsideIt() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-local-\(UUID().uuidString)")
        let root = base.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        try Data("inside".utf8).write(to: root.appendingPathComponent("sub/a.jpg"))
        try Data("outside".utf8).write(to: base.appendingPathComponent("secret.jpg"))
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("escape.jpg").path, withDestinationPath: base.appendingPathComponent("secret.jpg").path)
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("up").path, withDestinationPath: base.path)
        let local = try #require(LocalSourceRoot(path: root.path))

        #expect(try await local.read("/sub/a.jpg", maximumBytes: 100).data == Data("inside".utf8))
        #expect(try await local.read("sub/a.jpg", maximumBytes: 100).data == Data("inside".utf8))
        for hostile in ["/../secret.jpg", "sub/../../secret.jpg", "/escape.jpg", "/up/secret.jpg", "/sub", "/missing.jpg", "/"] {
            await #expect(throws: ImageServerError.self, "\(hostile)") { try await local.read(hostile, maximumBytes: 100) }
        }
        await #expect(throws: ImageServerError.self) { try await local.read("/sub/a.jpg", maximumBytes: 3) }
        #expect(LocalSourceRoot(path: base.appendingPathComponent("secret.jpg").path) == nil)
    }

    /// A local source's version is its modification time and size, as nginx's ETag: no digest of
    /// its bytes a request; another version of the file gives another tag.
    @Test func aFilesTagIsItsModificationTimeAndSizeAsNginxWritesThem() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-local-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("a.jpg")
        let local = try #require(LocalSourceRoot(path: root.path))
        for (text, second, tag) in [("inside", 1_700_000_000, "\"6553f100-6\""), ("changed", 1_700_000_001, "\"6553f101-7\"")] {
            try Data(text.utf8).write(to: file)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: TimeInterval(second))], ofItemAtPath: file.path)
            let source = try await local.read("a.jpg", maximumBytes: 100)
            #expect(source.data == Data(text.utf8) && source.validators == HTTPValidators(entityTag: tag))
        }
    }
}
