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
/// bounded amount of memory. With `CACHE_SOURCES` it keeps fetched sources too, under
/// `sources/` in the prefix (`SourceStore` asks it).
final class SharedResultStorage: Sendable {
    let client: S3ObjectClient
    /// The keys' folder, with its `/` when not empty.
    let prefix: String
    let reportsErrors: Bool
    let maxPendingWrites: Int
    /// The folder of kept sources under the prefix.
    static let sourcesFolder = "sources/"
    /// Bytes an object may have to be read: more is no result of ours.
    static let maximumObjectBytes = 256 << 20
    private let metrics: ServerMetrics
    private let failures = ThrottledWarning(period: .seconds(60))
    /// Writes begun and not yet ended, by number.
    private let writes = Locked<(next: Int, running: [Int: Task<Void, Never>])>((0, [:]))

    init(client: S3ObjectClient, settings: ResultCacheSettings, metrics: ServerMetrics) {
        self.client = client
        prefix = settings.objectPrefix
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
        guard let (body, metadata) = try await object(objectKey(key), ResultMetadata.self, kind: "result", logger: logger) else { return nil }
        return StoredResult(body: body, metadata: metadata)
    }

    /// Writes `result` (`data` its bytes) under `key`: behind the caller, or, when reporting
    /// errors, before returning (throwing what failed).
    func store(_ result: StoredResult, data: Data, forKey key: ResultKey, logger: Logger) async throws {
        let headers: [(name: String, value: String)]
        do {
            headers = try ResultObject.headers(metadata: result.metadata, body: data)
        } catch {
            try failed("put", error, logger: logger)
            return
        }
        if reportsErrors {
            try await write(objectKey(key), data: data, headers: headers, kind: "result", logger: logger)
        } else {
            writeBehind(objectKey(key), data: data, headers: headers, kind: "result", logger: logger)
        }
    }

    /// The object key of the fetched source `source` (`CACHE_SOURCES`): under `sources/`.
    func sourceObjectKey(_ source: String) -> String {
        prefix + Self.sourcesFolder + SignatureV4.hex(SHA256.hash(data: Data(source.utf8)))
    }

    /// The source kept under `source`'s key, with its metadata; nil when none, damaged, or the
    /// store fails (a source is fetched then, whatever `CACHE_REPORT_ERRORS` says).
    func source<Metadata: Decodable>(_ source: String, _ type: Metadata.Type, logger: Logger) async -> (ByteBuffer, Metadata)? {
        (try? await object(sourceObjectKey(source), type, kind: "source", reporting: false, logger: logger)) ?? nil
    }

    /// Writes a fetched source behind the caller.
    func storeSource(_ data: Data, metadata: some Encodable, forSource source: String, logger: Logger) {
        guard let headers = try? ResultObject.headers(metadata: metadata, contentType: "application/octet-stream", body: data) else { return }
        writeBehind(sourceObjectKey(source), data: data, headers: headers, kind: "source", logger: logger)
    }

    /// The object under `objectKey` and its metadata, checked whole; counted under `kind`.
    private func object<Metadata: Decodable>(
        _ objectKey: String, _ type: Metadata.Type, kind: String, reporting: Bool = true, logger: Logger
    ) async throws -> (ByteBuffer, Metadata)? {
        let object: S3ObjectClient.Object?
        do {
            object = try await client.get(objectKey, maximumBytes: Self.maximumObjectBytes)
        } catch {
            if reporting { try failed(operation("get", kind), error, logger: logger) } else { try? failed(operation("get", kind), error, logger: logger) }
            return nil
        }
        guard let object else {
            metrics.resultStorage(operation("get", kind), "miss")
            return nil
        }
        do {
            let metadata = try ResultObject.metadata(type, body: object.body, headers: object.headers)
            metrics.resultStorage(operation("get", kind), "hit")
            return (object.body, metadata)
        } catch {
            // Not an error of the store's: made again and written over.
            metrics.resultStorage(operation("get", kind), "damaged")
            failures.warn("an object in the shared store is damaged: made again", metadata: ["key": "\(objectKey)", "error": "\(error)"], logger: logger)
            return nil
        }
    }

    /// `get` and `put` for results, `source_get` and `source_put` for sources.
    private func operation(_ verb: String, _ kind: String) -> String {
        kind == "result" ? verb : kind + "_" + verb
    }

    /// Begins writing an object behind the caller, unless `maxPendingWrites` are in flight
    /// (then it is dropped, counted).
    private func writeBehind(_ objectKey: String, data: Data, headers: [(name: String, value: String)], kind: String, logger: Logger) {
        let begun = writes.withLock { writes -> Bool in
            guard writes.running.count < maxPendingWrites else { return false }
            let number = writes.next
            writes.next += 1
            writes.running[number] = Task {
                try? await self.write(objectKey, data: data, headers: headers, kind: kind, logger: logger)
                _ = self.writes.withLock { $0.running.removeValue(forKey: number) }
            }
            return true
        }
        if !begun {
            metrics.resultStorage(operation("put", kind), "dropped")
            failures.warn("an object not written to the shared store: \(maxPendingWrites) writes in flight", metadata: [:], logger: logger)
        }
    }

    /// Writes in flight now.
    var pendingWrites: Int { writes.withLock { $0.running.count } }

    /// Returns once every write begun before the call has ended.
    func finishWrites() async {
        for write in writes.withLock({ Array($0.running.values) }) { await write.value }
    }

    private func write(_ objectKey: String, data: Data, headers: [(name: String, value: String)], kind: String, logger: Logger) async throws {
        do {
            try await client.put(objectKey, body: data, headers: headers)
            metrics.resultStorage(operation("put", kind), "written")
        } catch {
            try failed(operation("put", kind), error, logger: logger)
        }
    }

    /// Counts and logs (once a period) a failed call; rethrows it, as a 500, when reporting errors.
    private func failed(_ operation: String, _ error: any Error, logger: Logger) throws {
        // The request went (its client, its timeout): not the store's failure.
        if error is CancellationError || Task.isCancelled { return }
        metrics.resultStorage(operation, "failed")
        failures.warn("the shared result store failed", metadata: ["operation": "\(operation)", "error": "\(error)"], logger: logger)
        if reportsErrors { throw ImageServerError.internalError("the shared result store failed (\(operation)): \(error)") }
    }
}

extension SharedResultStorage: SharedSourceStorage {}
