import Foundation
import Glibc
import Synchronization
import WebImage

// A real full disk, for DiskCacheMultiProcessTests: the test mounts a small tmpfs in a mount
// namespace of its own and runs `--full-disk <folder>` there. Two threads of this process and
// one other process (`--fill <folder> other`) store entries of 20 – 200 KB until the file
// system is full, while a reader thread reads every entry it sees. Then it checks what a user
// relies on, frees space, and checks that stores work again.

/// An entry that says which key it belongs to, so a reader that finds it by file name can tell
/// whether it is whole: the key, a line break, then the key repeated to the key's size.
func fullDiskPayload(for key: String) -> Data {
    var hash: UInt32 = 2_166_136_261
    for byte in key.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
    let size = 20_000 + Int(hash % 180_000)
    var data = Data((key + "\n").utf8)
    let unit = Data((key + ";").utf8)
    while data.count < size { data.append(unit.prefix(size - data.count)) }
    return data
}

/// Whether `content` is a whole entry of its own key.
func isWholeFullDiskPayload(_ content: Data) -> Bool {
    guard let end = content.firstIndex(of: UInt8(ascii: "\n")) else { return false }
    return content == fullDiskPayload(for: String(decoding: content[..<end], as: UTF8.self))
}

/// What one writer did: the keys it stored, and how many stores failed for want of space.
struct FillOutcome: Sendable {
    var stored: [String] = []
    var failedForSpace = 0
}

/// Stores `<prefix>-0`, `<prefix>-1`, ... until 20 in a row fail. A failure must be a
/// `DiskCacheError` with ENOSPC: anything else ends the process. `afterFirstStore` runs once the
/// first store has succeeded.
func fill(_ cache: DiskCache, prefix: String, afterFirstStore: () -> Void = {}) -> FillOutcome {
    var outcome = FillOutcome()
    var failuresInARow = 0
    var index = 0
    while failuresInARow < 20 {
        let key = "\(prefix)-\(index)"
        index += 1
        do {
            try cache.setData(fullDiskPayload(for: key), forKey: key)
            outcome.stored.append(key)
            if outcome.stored.count == 1 { afterFirstStore() }
            failuresInARow = 0
        } catch let error as DiskCacheError where error.code == ENOSPC {
            outcome.failedForSpace += 1
            failuresInARow += 1
        } catch {
            fail("a store failed with something other than ENOSPC: \(error)")
        }
    }
    return outcome
}

/// `--fill <folder> <prefix>`: the second process. Prints "ready" once it has stored an entry
/// (so that both processes are storing when the disk fills), then, at the end, each key it
/// stored and a count line.
func fillFromAnotherProcess(folder: String, prefix: String) {
    let outcome = fill(DiskCache(cachePath: folder, config: ImageCacheConfig()), prefix: prefix) {
        FileHandle.standardOutput.write(Data("ready\n".utf8))
    }
    print(outcome.stored.map { "stored \($0)" }.joined(separator: "\n"))
    print("failed \(outcome.failedForSpace)")
}

/// Runs `body` on a thread of its own (the writers block in write(2) and must run at once,
/// not wait for the cooperative pool) and returns what it returns.
func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}

/// `--full-disk <folder>`: the whole check; prints a `summary` line and exits 0 when it holds.
func fullDiskScenario(folder: String) async throws {
    var info = statvfs()
    guard statvfs(folder, &info) == 0 else { fail("cannot stat \(folder)") }
    let capacity = Int(info.f_blocks) * Int(info.f_frsize)
    // Never fill a real disk by mistake.
    guard capacity > 0, capacity <= 64 << 20 else { fail("\(folder) holds \(capacity) bytes: not a small test file system") }
    // maxDiskSize above the capacity: a trim must never start, so every entry stored stays.
    var config = ImageCacheConfig()
    config.maxDiskSize = 2 * capacity
    let cache = DiskCache(cachePath: folder, config: config)

    let other = Process()
    other.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    other.arguments = ["--fill", folder, "other"]
    let otherOutput = Pipe()
    other.standardOutput = otherOutput
    try other.run()
    let ready = await onThread { otherOutput.fileHandleForReading.readData(ofLength: 6) }
    guard ready == Data("ready\n".utf8) else { fail("the other writer did not start storing") }

    let writersDone = Flag()
    let reader = Task.detached {
        await onThread { () -> (reads: Int, partial: [String]) in
            var reads = 0
            var partial: [String] = []
            while !writersDone.isSet {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where !name.hasPrefix(".") {
                    // An entry removed between the listing and the read is not a partial one.
                    guard let content = FileManager.default.contents(atPath: folder + "/" + name) else { continue }
                    reads += 1
                    if !isWholeFullDiskPayload(content) { partial.append(name) }
                }
            }
            return (reads, partial)
        }
    }
    async let first = onThread { fill(cache, prefix: "first") }
    async let second = onThread { fill(cache, prefix: "second") }
    let outcomes = await [first, second]
    let otherText = String(decoding: otherOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    other.waitUntilExit()
    writersDone.set()
    let (reads, partial) = await reader.value
    guard other.terminationStatus == 0 else { fail("the other writer failed (status \(other.terminationStatus))") }
    let otherStored = otherText.split(separator: "\n").filter { $0.hasPrefix("stored ") }.map { String($0.dropFirst(7)) }
    let otherFailed = otherText.split(separator: "\n").last.flatMap { Int($0.dropFirst("failed ".count)) } ?? 0

    // What a user relies on once the disk is full.
    guard partial.isEmpty else { fail("a reader saw \(partial.count) partial entries: \(partial.prefix(3))") }
    let stored = outcomes.flatMap(\.stored) + otherStored
    for key in stored where cache.data(forKey: key) != fullDiskPayload(for: key) {
        fail("\(key) was stored but does not read back whole")
    }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    if let leftover = names.first(where: { $0.hasPrefix(".") }) { fail("a temporary file is left: \(leftover)") }
    guard names.count == stored.count else { fail("\(names.count) entries on disk for \(stored.count) stores that succeeded") }
    let expectedSize = stored.reduce(0) { $0 + fullDiskPayload(for: $1).count }
    guard cache.totalSize == expectedSize, cache.totalCount == stored.count else {
        fail("the cache counts \(cache.totalCount) entries, \(cache.totalSize) bytes; the stores that succeeded hold \(stored.count), \(expectedSize)")
    }

    // Space returns: every other entry removed; stores from two threads succeed again.
    let removed = stride(from: 0, to: stored.count, by: 2).map { stored[$0] }
    for key in removed { cache.removeData(forKey: key) }
    let freed = removed.reduce(0) { $0 + fullDiskPayload(for: $1).count }
    let again = (0..<10).map { "again-\($0)" }
    guard again.reduce(0, { $0 + fullDiskPayload(for: $1).count }) < freed else { fail("too little space freed to store again") }
    async let evenStores = onThread { storeAll(cache, stride(from: 0, to: 10, by: 2).map { again[$0] }) }
    async let oddStores = onThread { storeAll(cache, stride(from: 1, to: 10, by: 2).map { again[$0] }) }
    let recovered = await evenStores + oddStores
    for key in again where cache.data(forKey: key) != fullDiskPayload(for: key) { fail("\(key), stored after space returned, does not read back") }

    let failed = outcomes.reduce(0) { $0 + $1.failedForSpace } + otherFailed
    print("summary capacity=\(capacity) stored=\(stored.count) storedByOtherProcess=\(otherStored.count) failedForSpace=\(failed) reads=\(reads) partial=0 recovered=\(recovered)/10")
}

/// A flag one thread sets and others read (an atomic, which ThreadSanitizer sees).
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

/// Stores each key; returns how many succeeded (a failure ends the process with its reason).
func storeAll(_ cache: DiskCache, _ keys: [String]) -> Int {
    for key in keys {
        do { try cache.setData(fullDiskPayload(for: key), forKey: key) } catch { fail("\(key) failed after space returned: \(error)") }
    }
    return keys.count
}
