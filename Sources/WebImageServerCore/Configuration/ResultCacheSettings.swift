import Foundation

/// imgproxy Pro's internal cache settings (`CACHE_USE`, `CACHE_BUCKET`, …): where results are
/// kept beside the process's memory and disk, so that replicas share what each made. The key is
/// imgproxy's (source URL, processing options with the cache buster, output format, the request
/// headers and cookies named here; never the signature).
public struct ResultCacheSettings: Sendable {
    /// The storages imgproxy names; `gcs`, `abs` and `swift` are refused at start until built.
    public enum Storage: String, Sendable, CaseIterable {
        /// The local disk tier (`CACHE_FS_ROOT`, else `--cache-dir`): what every server has.
        case fs
        /// An S3 bucket (AWS, or a compatible store at `s3.endpoint`).
        case s3
        case gcs, abs, swift

        /// Whether this server has it.
        public var isBuilt: Bool { self == .fs || self == .s3 }
    }

    /// `CACHE_USE`; nil: results stay in the process's memory and disk tiers.
    public var use: Storage?
    /// `CACHE_BUCKET`: the bucket results are kept in (with `fs`: a folder under the root).
    public var bucket = ""
    /// `CACHE_PATH_PREFIX`: the folder of the keys in the bucket (`results/`); empty: its top.
    public var pathPrefix = ""
    /// `CACHE_FS_ROOT`: with `fs`, the folder results are kept in; nil: `--cache-dir`.
    public var fsRoot: String?
    /// `CACHE_KEY_HEADERS`: request headers whose values are part of every result's key.
    public var keyHeaders: [String] = []
    /// `CACHE_KEY_COOKIES`: request cookies whose values are part of every result's key.
    public var keyCookies: [String] = []
    /// `CACHE_REPORT_ERRORS`: a storage failure fails the request (500) rather than being
    /// answered by processing without the store.
    public var reportErrors = false
    /// `CACHE_S3_REGION`, `CACHE_S3_ENDPOINT`, `CACHE_S3_ENDPOINT_USE_PATH_STYLE`, as the source
    /// settings of the same names read them; the credentials are the source's (the environment's).
    public var s3 = S3Settings()
    /// `CACHE_SOURCES` (this server's own): fetched sources (remote and `s3://`, not those
    /// fetched with a client's cookies) kept in the bucket too, under `PATH_PREFIX/sources/`, so
    /// that a replica making another size of a known image fetches nothing from the origin.
    public var keepsSources = false
    /// Seconds each storage call may take (a GET with its body, a PUT); past it the call counts
    /// as failed. This server's own setting.
    public var timeout: Double = 2
    /// Writes to storage in flight at most; past it a result is not written (counted).
    public var maxPendingWrites = 64

    public init() {}

    /// Why a server cannot start with these settings; empty when it can.
    var problems: [String] {
        var problems: [String] = []
        if let use, !use.isBuilt {
            problems.append("\(ImageServerConfiguration.names(of: \.resultCache.use)): \(use.rawValue) is not built yet (fs and s3 are)")
        }
        if use == .s3 && bucket.isEmpty {
            problems.append("\(ImageServerConfiguration.names(of: \.resultCache.bucket)): must be set when \(ImageServerConfiguration.names(of: \.resultCache.use)) is s3")
        }
        return problems
    }
}
