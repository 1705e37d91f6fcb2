import Foundation
import Testing
@testable import WebImage

/// Tests that need a process of their own: two writers on one folder, and a full disk
/// (simulated with a file size limit, which only a separate process can set safely).
@Suite("Caching: DiskCache in helper processes")
struct DiskCacheMultiProcessTests {
    /// The data `cache-stress-writer` stores for `key` (same formula as its main.swift).
    private func payload(for key: String) -> Data {
        Data(String(repeating: key + ";", count: 8 + key.utf8.count % 50).utf8)
    }

    private func writerExecutable() throws -> URL {
        let candidates = [
            CacheFixtures.buildFolder.appendingPathComponent("cache-stress-writer"),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(".build/debug/cache-stress-writer"),
        ]
        return try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) })
    }

    /// Runs the writer and returns its exit status once it has ended.
    private func run(_ executable: URL, arguments: [String]) async throws -> Int32 {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        return try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
    }

    @Test func twoWritersAtOnceLeaveEveryEntryWholeAndNoTemporaryFiles() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let folder = scratch.path + "/shared"
        let executable = try writerExecutable()
        let count = 1_000
        async let first = run(executable, arguments: [folder, "first", "\(count)"])
        async let second = run(executable, arguments: [folder, "second", "\(count)"])
        let statuses = try await [first, second]
        #expect(statuses == [0, 0])

        let cache = DiskCache(cachePath: folder, config: ImageCacheConfig())
        var keys = (0..<count).flatMap { ["first-\($0)", "second-\($0)"] }
        keys += stride(from: 0, to: count, by: 10).map { "shared-\($0)" }
        var mismatches = 0
        for key in keys where cache.data(forKey: key) != payload(for: key) { mismatches += 1 }
        #expect(mismatches == 0)
        #expect(cache.totalCount == keys.count)
        #expect(ScratchFolder.allNames(in: folder).filter { $0.hasPrefix(".") }.isEmpty)
    }

    @Test func aFullDiskFailsTheStoreAndLeavesNoPartialFile() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let folder = scratch.path + "/full"
        let status = try await run(try writerExecutable(), arguments: ["--disk-full", folder])
        #expect(status == 0)
        let cache = DiskCache(cachePath: folder, config: ImageCacheConfig())
        #expect(cache.data(forKey: "small") == Data(repeating: 1, count: 500))
        #expect(!cache.containsData(forKey: "big"))
        #expect(ScratchFolder.allNames(in: folder).filter { $0.hasPrefix(".") }.isEmpty)
    }
}
