import Foundation
import Testing
import WebImageTestSupport

/// Test bodies run off Swift's cooperative pool (`OffThePool`), in every suite: a synchronous
/// body that decodes for seconds holds one of the queue's threads, not one of the pool's two.
@Suite(.offThePool) struct OffThePoolTests {
    @Test func aSynchronousBodyRunsOnTheTestBodiesQueue() {
        #expect(TestBodyExecutor.isCurrent)
    }

    @Test func anAsynchronousBodyStaysThereAfterAnAwait() async throws {
        #expect(TestBodyExecutor.isCurrent)
        try await Task.sleep(for: .milliseconds(1))
        #expect(TestBodyExecutor.isCurrent)
        // A task of its own (as the library's) runs on the pool.
        #expect(await Task.detached { TestBodyExecutor.isCurrent }.value == false)
    }

    /// Every suite of both test targets says so: each `@Suite` carries `.offThePool`, and no
    /// file holds tests outside one.
    @Test func everySuiteRunsOffThePool() throws {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var missing: [String] = []
        for target in ["WebImageTests", "WebImageServerTests"] {
            let folder = tests.appendingPathComponent(target)
            let files = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.allObjects as? [URL])
            for file in files where file.pathExtension == "swift" {
                let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                let suites = lines.filter { $0.hasPrefix("@") && $0.contains("@Suite") }  // attribute lines
                if suites.contains(where: { !$0.contains(".offThePool") }) {
                    missing.append(file.lastPathComponent)
                }
                if suites.isEmpty && lines.contains(where: { $0.hasPrefix("@Test") }) { missing.append(file.lastPathComponent) }
            }
        }
        #expect(missing.isEmpty, "suites without .offThePool: \(missing.sorted())")
    }
}
