extension ImageServerConfiguration {
    /// imgproxy Pro's internal cache group (docs/server-shared-cache.md), as far as it is built,
    /// and this server's own bounds on the storage's calls.
    static let resultCache: [ImageServerSetting] = [
        .read(
            "cache.use", \.resultCache.use, .optional(.named("a cache storage (fs, s3, gcs, abs, swift)")),
            "`s3`: results kept in an S3 bucket too, shared by replicas; `fs`: on the local disk only (as without it); `gcs`, `abs`, `swift` refused"
        ),
        .read("cache.bucket", \.resultCache.bucket, .text, defaultDescription: "none", "the bucket results are kept in (with `fs`: a folder under the root)"),
        .read("cache.pathPrefix", \.resultCache.pathPrefix, .text, defaultDescription: "none", "the folder of the results' keys in the bucket; none: its top"),
        .read("cache.fsRoot", \.resultCache.fsRoot, .optional(.text), "with `CACHE_USE=fs`, the folder results are kept in; none: `CACHE_DIR`"),
        .read("cache.keyHeaders", \.resultCache.keyHeaders, .list, "request headers whose values are part of each result's key"),
        .read("cache.keyCookies", \.resultCache.keyCookies, .list, "request cookies whose values are part of each result's key"),
        .read(
            "cache.reportErrors", \.resultCache.reportErrors, .bool,
            "a storage failure fails the request (500) rather than being answered by processing without the store"
        ),
        .read(
            "cache.s3.region", \.resultCache.s3.region, .optional(.text), defaultDescription: "`AWS_REGION`, else `AWS_DEFAULT_REGION`, else `us-west-1`",
            "the region the store's requests are signed for"
        ),
        .read("cache.s3.endpoint", \.resultCache.s3.endpoint, .optional(.text), "an S3-compatible store for results (`http://` when no scheme); none: AWS"),
        .read(
            "cache.s3.endpointUsePathStyle", \.resultCache.s3.endpointUsesPathStyle, .bool,
            "`ENDPOINT/bucket/key` rather than `bucket.ENDPOINT/key` (with `CACHE_S3_ENDPOINT` only)"
        ),
        .read(
            "cache.sources", \.resultCache.keepsSources, .bool,
            "with `CACHE_USE=s3`, fetched sources kept in the bucket too (under `sources/`): another replica fetches nothing from the origin"
        ),
        .read("cache.storageTimeout", \.resultCache.timeout, .seconds, "seconds each call to the store may take; past it, a miss (or a dropped write)"),
        .read(
            "cache.storageMaxPendingWrites", \.resultCache.maxPendingWrites, .int(in: 1...100_000),
            "writes to the store in flight at most; past it, results are not written (counted)"
        ),
        .refused("cache.s3.assumeRoleArn", "STS role to assume for the cache bucket"),
        .refused("cache.s3.assumeRoleExternalId", "external ID for the cache's role"),
    ]
}
