extension ResultCacheSettings {
    /// The folder of the disk tier's results: `CACHE_FS_ROOT` (with `CACHE_BUCKET` and
    /// `CACHE_PATH_PREFIX` below it) with `CACHE_USE=fs`, else `cacheDirectory`.
    func diskFolder(cacheDirectory: String) -> String {
        guard use == .fs, let fsRoot else { return cacheDirectory }
        return [fsRoot, bucket, pathPrefix].filter { !$0.isEmpty }.joined(separator: "/")
    }

    /// The shared tier `CACHE_USE=s3` asks for; nil for none. Throws for an endpoint that is no URL.
    func sharedStorage(metrics: ServerMetrics) throws(ImageServerConfigurationError) -> SharedResultStorage? {
        guard use == .s3 else { return nil }
        return SharedResultStorage(client: try bucketClient(timeout: timeout), settings: self, metrics: metrics)
    }

    /// A client of `CACHE_BUCKET` on the S3 settings, each call bounded by `timeout` seconds.
    func bucketClient(timeout: Double) throws(ImageServerConfigurationError) -> S3ObjectClient {
        guard let client = S3ObjectClient(settings: s3, bucket: bucket, timeout: .nanoseconds(Int64(min(timeout, 1e6) * 1e9))) else {
            throw .invalidSetting(\.resultCache.s3.endpoint, "\"\(s3.endpoint ?? "")\" is not a URL with a host")
        }
        return client
    }

    /// `CACHE_PATH_PREFIX` as the objects' keys begin: no `/` in front, one behind unless empty.
    var objectPrefix: String {
        var prefix = Substring(pathPrefix)
        while prefix.hasPrefix("/") { prefix.removeFirst() }
        while prefix.hasSuffix("/") { prefix.removeLast() }
        return prefix.isEmpty ? "" : prefix + "/"
    }
}
