import Foundation

/// What the shared result store (`CACHE_USE=s3`) holds under `CACHE_PATH_PREFIX`, counted by
/// `ResultCacheSettings.sharedStoreContents()` or removed by `removeSharedStoreContents()`
/// (`webimage cache stats|clear --bucket`). Only objects named as the server names them count:
/// a result is the prefix and 64 hex digits, a kept source (`CACHE_SOURCES`) the prefix,
/// `sources/` and 64 hex digits; anything else in the bucket is left alone.
public struct SharedStoreContents: Sendable, Equatable {
    /// A number of objects and their bytes.
    public struct Tally: Sendable, Equatable {
        public var objects = 0
        public var bytes = 0

        public init(objects: Int = 0, bytes: Int = 0) {
            (self.objects, self.bytes) = (objects, bytes)
        }
    }

    /// Results.
    public var results = Tally()
    /// Fetched sources kept with them.
    public var sources = Tally()

    public init(results: Tally = Tally(), sources: Tally = Tally()) {
        (self.results, self.sources) = (results, sources)
    }
}

/// Why the shared store's contents could not be counted or removed.
public enum SharedStoreError: Error, CustomStringConvertible {
    /// `CACHE_USE` is not `s3`.
    case notInUse
    /// The store failed a call (its status, a timeout, an answer that is no listing).
    case storage(String)

    public var description: String {
        switch self {
        case .notInUse: "\(ImageServerConfiguration.names(of: \.resultCache.use)) is not s3: there is no shared store to read"
        case let .storage(problem): "the shared store failed: \(problem)"
        }
    }
}

extension ResultCacheSettings {
    /// Where the shared store keeps its objects: `s3://BUCKET/PREFIX`; nil unless `CACHE_USE=s3`.
    public var sharedStoreLocation: String? {
        use == .s3 ? "s3://\(bucket)/\(objectPrefix)" : nil
    }

    /// Counts the results and sources the shared store holds (every page of the listing).
    public func sharedStoreContents() async throws -> SharedStoreContents {
        try await withStoreObjects(pageSize: 1000) { _, _ in }
    }

    /// Removes every result and source the shared store holds (versioned buckets keep their
    /// earlier versions behind a delete marker, as S3 does); returns what it removed.
    public func removeSharedStoreContents() async throws -> SharedStoreContents {
        try await removeSharedStoreContents(pageSize: 1000)
    }

    /// `removeSharedStoreContents()`, listing `pageSize` keys a page.
    func removeSharedStoreContents(pageSize: Int) async throws -> SharedStoreContents {
        try await withStoreObjects(pageSize: pageSize) { client, keys in
            // A few deletes at once: one call each, none past the storage's timeout.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, key) in keys.enumerated() {
                    if index >= 16 { try await group.next() }
                    group.addTask { try await client.delete(key) }
                }
                try await group.waitForAll()
            }
        }
    }

    /// Lists the store's objects page by page (`pageSize` keys each), tallies those of the server's naming and hands
    /// each page's keys of them to `body`.
    private func withStoreObjects(pageSize: Int, _ body: (S3ObjectClient, [String]) async throws -> Void) async throws -> SharedStoreContents {
        guard use == .s3 else { throw SharedStoreError.notInUse }
        // A command, not a request: the listing's pages may take longer than a request's call.
        let client = try bucketClient(timeout: max(timeout, 30))
        let prefix = objectPrefix
        var contents = SharedStoreContents()
        var token: String?
        do {
            repeat {
                let page = try await client.list(prefix: prefix, continuationToken: token, maxKeys: pageSize)
                var keys: [String] = []
                for entry in page.entries {
                    let name = entry.key.dropFirst(prefix.count)
                    if Self.isDigest(name) {
                        contents.results.objects += 1
                        contents.results.bytes += entry.size
                    } else if name.hasPrefix(SharedResultStorage.sourcesFolder), Self.isDigest(name.dropFirst(SharedResultStorage.sourcesFolder.count)) {
                        contents.sources.objects += 1
                        contents.sources.bytes += entry.size
                    } else {
                        continue
                    }
                    keys.append(entry.key)
                }
                try await body(client, keys)
                token = page.nextContinuationToken
            } while token != nil
        } catch {
            await client.shutdown()
            throw SharedStoreError.storage("\(error)")
        }
        await client.shutdown()
        return contents
    }

    /// Whether `name` is a SHA-256 in lower-case hex, as the store names objects.
    private static func isDigest(_ name: Substring) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }
}
