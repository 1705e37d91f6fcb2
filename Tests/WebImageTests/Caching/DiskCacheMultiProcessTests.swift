import Foundation
import Testing
@testable import WebImage
import WebImageTestServer
import WebImageTestSupport

extension Heavy {
    /// Tests that need a process of their own: two writers on one folder, a writer killed mid-write,
    /// a full disk (a real one: a small tmpfs in a mount namespace of the helper's own; and a file
    /// size limit, which gives a store the same failure without a mount).
    @Suite("Caching: DiskCache in helper processes", .offThePool)
    struct DiskCacheMultiProcessTests {
        /// The data `cache-stress-writer` stores for `key` (same formula as its main.swift).
        private func payload(for key: String) -> Data {
            Data(String(repeating: key + ";", count: 8 + key.utf8.count % 50).utf8)
        }

        /// The data `cache-stress-writer --until-killed` stores for `key` (same formula as its main.swift).
        private func largePayload(for key: String) -> Data {
            Data(String(repeating: key + ";", count: 262_144 / (key.utf8.count + 1) + 1).utf8)
        }

        @Test func twoWritersAtOnceLeaveEveryEntryWholeAndNoTemporaryFiles() async throws {
            let scratch = try ScratchFolder()
            defer { scratch.remove() }
            let folder = scratch.path + "/shared"
            let count = 1_000
            async let first = ChildProcess.run("cache-stress-writer", [folder, "first", "\(count)"])
            async let second = ChildProcess.run("cache-stress-writer", [folder, "second", "\(count)"])
            let statuses = try await [first.status, second.status]
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

        @Test(.timeLimit(.minutes(TestAllowance.minutes(1))))
        func aWriterKilledMidWriteLeavesOnlyWholeEntries() async throws {
            let scratch = try ScratchFolder()
            defer { scratch.remove() }
            let folder = scratch.path + "/killed"
            let process = Process()
            process.executableURL = try ChildProcess.executable("cache-stress-writer")
            process.arguments = ["--until-killed", folder]
            let ended = AsyncStream.makeStream(of: Void.self)
            process.terminationHandler = { _ in ended.continuation.yield() }
            let output = try ChildLaunch.serialized { () throws -> Pipe in
                let output = Pipe()
                process.standardOutput = output
                try process.run()
                return output
            }
            // Blocking read on a thread of its own, off the cooperative pool.
            let ready = await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(returning: output.fileHandleForReading.readData(ofLength: 6))
                }
            }
            #expect(ready == Data("ready\n".utf8))
            kill(process.processIdentifier, SIGKILL)
            var endings = ended.stream.makeAsyncIterator()
            await endings.next()
            #expect(process.terminationReason == .uncaughtSignal)

            // Whatever the kill interrupted, every entry under a key is whole.
            let cache = DiskCache(cachePath: folder, config: ImageCacheConfig())
            let names = ScratchFolder.entryNames(in: folder)
            #expect(names.count >= 20)
            for index in 0..<names.count {
                let key = "killed-\(index)"
                #expect(cache.data(forKey: key) == largePayload(for: key), "\(key)")
            }
            // The interrupted temporary file, if any, went when the cache above started.
            cache.waitForMaintenance()
            #expect(ScratchFolder.allNames(in: folder).count == names.count)
        }

        /// 200 writers, each SIGKILLed at a random moment, one after another on one folder: half of
        /// them 0 to 60 ms after they are started (before their cache starts, while it cleans up,
        /// mid-write...), half 0 to 30 ms after their cache has started (mid-write or between writes,
        /// however slow the start, as under a sanitizer). Every key then reads back absent or
        /// byte-identical, and once a cache starts no temporary file is left.
        @Test(.timeLimit(.minutes(TestAllowance.minutes(2))))
        func writersKilledAtRandomMomentsLeaveWholeEntriesAndNoTemporaryFiles() async throws {
            let scratch = try ScratchFolder()
            defer { scratch.remove() }
            let folder = scratch.path + "/crash"
            let executable = try ChildProcess.executable("cache-stress-writer").path
            let kills = 200
            // On a thread of its own: 200 starts and kills take a minute under a sanitizer, and on the
            // blocking pool (two threads here) they would hold back every decode of the suite.
            let (temporariesSeen, otherEndings) = try await ChildProcess.onOwnThread { () throws -> (Int, Int) in
                var temporariesSeen = 0
                var otherEndings = 0
                for round in 0..<kills {
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: executable)
                    process.arguments = ["--overwrite-until-killed", folder]
                    let output = try ChildLaunch.serialized { () throws -> Pipe in
                        let output = Pipe()
                        process.standardOutput = output
                        try process.run()
                        return output
                    }
                    if round.isMultiple(of: 2) {
                        usleep(UInt32.random(in: 0...60_000))
                    } else {
                        _ = output.fileHandleForReading.readData(ofLength: 6)
                        usleep(UInt32.random(in: 0...30_000))
                    }
                    kill(process.processIdentifier, SIGKILL)
                    process.waitUntilExit()
                    if process.terminationReason != .uncaughtSignal { otherEndings += 1 }
                    if ScratchFolder.allNames(in: folder).contains(where: { $0.hasPrefix(CacheFile.temporaryPrefix) }) {
                        temporariesSeen += 1
                    }
                }
                return (temporariesSeen, otherEndings)
            }
            #expect(otherEndings == 0)
            // Some kills landed mid-write (a temporary file was left), else the test proves little.
            #expect(temporariesSeen > 0)
            // The start's own sweep, not the expiry run (off here), removes the leftovers.
            var config = ImageCacheConfig()
            config.expiredDataRemovalInterval = 0
            let cache = DiskCache(cachePath: folder, config: config)
            cache.waitForMaintenance()
            #expect(ScratchFolder.allNames(in: folder).filter { $0.hasPrefix(".") }.isEmpty)
            var present = 0
            for index in 0..<50 {
                let key = "crash-\(index)"
                guard let data = cache.data(forKey: key) else { continue }
                present += 1
                #expect(data == largePayload(for: key), "\(key)")
            }
            #expect(present > 0 && cache.totalCount == present)
        }

        /// Runs the helper's checks `mode` (see cache-stress-writer) on a fresh folder in `scratch`,
        /// expecting them to hold, and returns the folder for the test's own checks.
        private func folderAfterHelperChecks(_ mode: String, in scratch: ScratchFolder) async throws -> String {
            let folder = scratch.path + "/" + mode.trimmingCharacters(in: CharacterSet(charactersIn: "-"))
            let result = try await ChildProcess.run("cache-stress-writer", [mode, folder])
            #expect(result.status == 0, "\(result.standardError)")
            return folder
        }

        @Test func aFullDiskFailsTheStoreAndLeavesNoPartialFile() async throws {
            let scratch = try ScratchFolder()
            defer { scratch.remove() }
            let folder = try await folderAfterHelperChecks("--file-size-limit", in: scratch)
            let cache = DiskCache(cachePath: folder, config: ImageCacheConfig())
            #expect(cache.data(forKey: "small") == Data(repeating: 1, count: 500))
            #expect(!cache.containsData(forKey: "big"))
            #expect(ScratchFolder.allNames(in: folder).filter { $0.hasPrefix(".") }.isEmpty)
            // The helper's ImageCache kept working from memory; its disk tier holds nothing.
            #expect(ScratchFolder.allNames(in: folder + "/image-cache").isEmpty)
        }

        /// A 4 MB tmpfs, mounted in a mount namespace of the helper's own (`unshare`: as root, or
        /// as any user where user namespaces are allowed; the mount goes when the helper ends),
        /// filled by two threads and two processes while a reader reads every entry it sees.
        @Test(.enabled(if: FullDiskMount.isPossible, "mounting a tmpfs needs root or user namespaces (unshare --map-root-user)"),
              .timeLimit(.minutes(TestAllowance.minutes(2))))
        func aRealFullDiskFailsStoresCleanlyAndStoresWorkOnceSpaceReturns() async throws {
            let scratch = try ScratchFolder()
            defer { scratch.remove() }
            let mountPoint = scratch.path + "/tmpfs"
            try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
            let writer = try ChildProcess.executable("cache-stress-writer").path
            let result = try await FullDiskMount.run(
                "mount -t tmpfs -o size=4m webimage-full-disk \"$0\" && exec \"$1\" --full-disk \"$0\"", mountPoint, writer)
            #expect(result.status == 0, "\(result.standardError)")
            let summary = try #require(result.standardOutput.split(separator: "\n").last { $0.hasPrefix("summary ") })
            let figures = Dictionary(uniqueKeysWithValues: summary.split(separator: " ").dropFirst().compactMap { pair -> (String, String)? in
                let parts = pair.split(separator: "=", maxSplits: 1)
                return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
            })
            // The disk really filled (stores failed for want of space), both processes stored,
            // the reader read entries while it filled and never saw a partial one, and every store
            // made after space returned succeeded. The helper checked each entry and the counts.
            #expect(Int(figures["failedForSpace"] ?? "") ?? 0 >= 60)
            #expect(Int(figures["stored"] ?? "") ?? 0 > 0 && Int(figures["storedByOtherProcess"] ?? "") ?? 0 > 0)
            #expect(Int(figures["reads"] ?? "") ?? 0 > 0 && figures["partial"] == "0")
            #expect(figures["recovered"] == "10/10")
            // The mount was the helper's alone: the folder the test sees is empty.
            #expect(ScratchFolder.allNames(in: mountPoint).isEmpty)
        }

        @Test func aReadOnlyFolderFailsStoresAndKeepsWhatItHolds() async throws {
            // In a helper process, which gives up root first: root writes into read-only folders.
            let scratch = try ScratchFolder()
            defer { scratch.remove() }
            let folder = try await folderAfterHelperChecks("--read-only", in: scratch)
            chmod(folder, 0o755)
            let cache = DiskCache(cachePath: folder, config: ImageCacheConfig())
            #expect(cache.data(forKey: "kept") == Data("kept".utf8) && !cache.containsData(forKey: "new"))
            #expect(ScratchFolder.allNames(in: folder).filter { $0.hasPrefix(".") }.isEmpty)
        }
    }
}

/// A shell in a mount namespace of its own, where it may mount a file system that no other
/// process sees and that goes when the namespace's last process ends.
enum FullDiskMount {
    static let unshare = URL(fileURLWithPath: "/usr/bin/unshare")

    /// Whether this machine lets the tests make such a namespace and mount a tmpfs in it.
    static let isPossible: Bool = {
        let probe = Process()
        probe.executableURL = unshare
        probe.arguments = ["--mount", "--map-root-user", "sh", "-c", "mount -t tmpfs -o size=64k probe /mnt"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? ChildLaunch.serialized { try probe.run() }) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    /// Runs `script` with `sh -c` in a new mount namespace (as root of a new user namespace, so
    /// that it may mount), `arguments` as its $0, $1, ...
    static func run(_ script: String, _ arguments: String...) async throws -> ChildProcess.Result {
        try await ChildProcess.run(executable: unshare, ["--mount", "--map-root-user", "sh", "-c", script] + arguments)
    }
}
