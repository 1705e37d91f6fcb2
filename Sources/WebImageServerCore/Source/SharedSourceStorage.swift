import Foundation
import Logging
import NIOCore

/// Where `CACHE_SOURCES` keeps fetched sources for the other replicas, as the source store sees
/// it: the shared result store (`SharedResultStorage`, a stage above, conforms).
protocol SharedSourceStorage: Sendable {
    /// The source kept under `source`'s name with its metadata, checked whole; nil: none.
    func source<Metadata: Decodable>(_ source: String, _ type: Metadata.Type, logger: Logger) async -> (ByteBuffer, Metadata)?
    /// Keeps `data` under `source`'s name, behind the caller (dropped when too many are pending).
    func storeSource(_ data: Data, metadata: some Encodable, forSource source: String, logger: Logger)
}
