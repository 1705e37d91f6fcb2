import Crypto
import Foundation
import Logging
import NIOCore
import WebImageSupport

/// The result store's shared tier (`CACHE_USE=s3`): results as objects of one bucket, under
/// `CACHE_PATH_PREFIX` and the SHA-256 of their key, read when memory and disk miss and written
/// behind the response that made them. Every replica with the same settings reads what the others
/// wrote. A storage that fails (down, slow past `CACHE_STORAGE_TIMEOUT`, 403, 5xx) is a miss and
/// a dropped write, logged at most once a minute and counted; with `CACHE_REPORT_ERRORS` it
/// fails the request instead, and a result is written before it is answered. Writes in flight
/// are bounded: past the bound a result is not written (counted), so that a slow store holds a
/// bounded amount of memory.
final class SharedResultStorage: Sendable {
    let client: S3ObjectClient
    /// The keys' folder, with its `/` when not empty.
    let prefix: String
    let reportsErrors: Bool
    let maxPendingWrites: Int
    /// Bytes an object may have to be read: more is no result of ours.
    static let maximumObjectBytes = 256 << 20
    private let metrics: ServerMetrics
    private let failures = ThrottledWarning(period: .seconds(60))
    /// Writes begun and not yet ended, by number.
    private let writes = Locked<(next: Int, running: [Int: Task<Void, Never>])>((0, [:]))

    init(client: S3ObjectClient, settings: ResultCacheSettings, metrics: ServerMetrics) {
        self.client = client
        var prefix = settings.pathPrefix
        while prefix.hasPrefix("/") { prefix.removeFirst() }
        while prefix.hasSuffix("/") { prefix.removeLast() }
        self.prefix = prefix.isEmpty ? "" : prefix + "/"
        reportsErrors = settings.reportErrors
        maxPendingWrites = max(1, settings.maxPendingWrites)
        self.metrics = metrics
    }

    /// The object key of `key`: the prefix, then the key's SHA-256 in hex.
    func objectKey(_ key: ResultKey) -> String {
        prefix + SignatureV4.hex(SHA256.hash(data: Data(key.text.utf8)))
    }

    /// The result under `key`; nil when the store has none, or a damaged one (which the next
    /// write replaces), or fails (throws then only when reporting errors).
    func result(forKey key: ResultKey, logger: Logger) async throws -> StoredResult? {
        let object: S3ObjectClient.Object?
        do {
            object = try await client.get(objectKey(key), maximumBytes: Self.maximumObjectBytes)
        } catch {
            try failed("get", error, key: key, logger: logger)
            return nil
        }
        guard let object else {
            metrics.resultStorage("get", "miss")
            return nil
        }
        do {
            let result = try ResultObject.result(body: object.body, headers: object.headers)
            metrics.resultStorage("get", "hit")
            return result
        } catch {
            // Not an error of the store's: made again and written over.
            metrics.resultStorage("get", "damaged")
            failures.warn("a result in the shared store is damaged: made again", metadata: ["key": "\(objectKey(key))", "error": "\(error)"], logger: logger)
            return nil
        }
    }

    /// Writes `result` (`data` its bytes) under `key`: behind the caller, or, when reporting
    /// errors, before returning (throwing what failed).
    func store(_ result: StoredResult, data: Data, forKey key: ResultKey, logger: Logger) async throws {
        if reportsErrors {
            try await write(result.metadata, data: data, forKey: key, logger: logger)
            return
        }
        let begun = writes.withLock { writes -> Bool in
            guard writes.running.count < maxPendingWrites else { return false }
            let number = writes.next
            writes.next += 1
            writes.running[number] = Task {
                try? await self.write(result.metadata, data: data, forKey: key, logger: logger)
                _ = self.writes.withLock { $0.running.removeValue(forKey: number) }
            }
            return true
        }
        if !begun {
            metrics.resultStorage("put", "dropped")
            failures.warn("a result not written to the shared store: \(maxPendingWrites) writes in flight", metadata: [:], logger: logger)
        }
    }

    /// Writes in flight now.
    var pendingWrites: Int { writes.withLock { $0.running.count } }

    /// Returns once every write begun before the call has ended.
    func finishWrites() async {
        for write in writes.withLock({ Array($0.running.values) }) { await write.value }
    }

    private func write(_ metadata: ResultMetadata, data: Data, forKey key: ResultKey, logger: Logger) async throws {
        do {
            try await client.put(objectKey(key), body: data, headers: try ResultObject.headers(metadata: metadata, body: data))
            metrics.resultStorage("put", "written")
        } catch {
            try failed("put", error, key: key, logger: logger)
        }
    }

    /// Counts and logs (once a period) a failed call; rethrows it, as a 500, when reporting errors.
    private func failed(_ operation: String, _ error: any Error, key: ResultKey, logger: Logger) throws {
        // The request went (its client, its timeout): not the store's failure.
        if error is CancellationError || Task.isCancelled { return }
        metrics.resultStorage(operation, "failed")
        failures.warn("the shared result store failed", metadata: ["operation": "\(operation)", "error": "\(error)"], logger: logger)
        if reportsErrors { throw ImageServerError.internalError("the shared result store failed (\(operation)): \(error)") }
    }
}
