import Foundation
import Logging
import MetricsTestKit
import NIOCore
import NIOFoundationCompat
import HTTPTypes
import Testing
@testable import WebImage
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// The shared result store (`CACHE_USE=s3`) on a real S3-compatible server on loopback (moto,
/// with IAM authentication on): replicas that share what each made, objects checked before they
/// are answered; and its failures (a store answering 500 or 403, or never), on a raw origin
/// whose answers the test controls.
@Suite("Shared result store", .offThePool)
struct SharedResultStoreTests {
    static let bucket = "results"
    static let path = "/unsafe/rs:fit:100:100/plain/local:///photos/rocket.jpg@png"

    /// A replica's settings: local sources from Tests/Images, results shared through `endpoint`.
    static func configuration(endpoint: String, credentials: AWSCredentials?, _ configure: (inout ImageServerConfiguration) -> Void = { _ in })
        -> ImageServerConfiguration {
        .underTest { configuration in
            configuration.localFilesystemRoot = TestServer.imagesFolder.path
            configuration.resultCache.use = .s3
            configuration.resultCache.bucket = bucket
            configuration.resultCache.pathPrefix = "/cache/"
            configuration.resultCache.s3.endpoint = endpoint
            configuration.resultCache.s3.region = "us-east-1"
            configuration.resultCache.s3.credentials = credentials
            // moto on a busy machine answers within it (the tests of the timeout set their own).
            configuration.resultCache.timeout = TestAllowance.seconds(10)
            configure(&configuration)
        }
    }

    /// The object key the result of `path` (with no `Accept`) is stored under.
    static func objectKey(_ path: String, _ configuration: ImageServerConfiguration) throws -> String {
        let request = try configuration.makeParser().parse(path: path, now: Date())
        let job = ImageJob(request: request, format: OutputFormatPlan(options: request.options, accept: nil, configuration: configuration.processing))
        let storage = try #require(try configuration.resultCache.sharedStorage(metrics: ServerMetrics(factory: TestMetrics())))
        defer { Task { await storage.client.shutdown() } }
        return storage.objectKey(job.key)
    }

    /// A client of the test's bucket, as the test itself reads and writes it.
    static func bucketClient(_ moto: MotoServer) throws -> S3ObjectClient {
        var settings = S3Settings()
        (settings.endpoint, settings.region, settings.credentials) = (moto.endpoint, "us-east-1", moto.credentials)
        return try #require(S3ObjectClient(settings: settings, bucket: bucket, timeout: .seconds(60)))
    }

    static func count(_ metrics: TestMetrics, _ operation: String, _ outcome: String) -> Int64 {
        (try? metrics.expectCounter("webimage_server_result_storage_calls_total", [("operation", operation), ("outcome", outcome)]).totalValue) ?? 0
    }

    static func processed(_ metrics: TestMetrics) throws -> Int64 {
        try metrics.expectCounter("webimage_server_processed_total").totalValue
    }

    @Test func aResultMadeByOneReplicaIsAStorageHitOnAnotherAndTheObjectIsWhatTheClientGot() async throws {
        try await withMoto(bucket: Self.bucket, objects: []) { moto in
            let configuration = Self.configuration(endpoint: moto.endpoint, credentials: moto.credentials)
            let (first, second) = (TestMetrics(), TestMetrics())
            let made = try await withRunningServer(configuration, metrics: first) { server in
                let reply = try await server.get(Self.path)
                #expect(reply.status == 200 && reply.header("x-cache") == "miss")
                let written = await eventually(within: TestAllowance.eventWait, every: .milliseconds(10)) { Self.count(first, "put", "written") == 1 }
                #expect(written)
                return reply
            }
            #expect(try Self.processed(first) == 1)

            // The object: the bytes the client got, with the result's metadata.
            let client = try Self.bucketClient(moto)
            let key = try Self.objectKey(Self.path, configuration)
            #expect(key.hasPrefix("cache/"))
            let object = try #require(try await client.get(key, maximumBytes: 1 << 20))
            #expect(Data(buffer: object.body) == made.body)
            #expect(object.headers[.contentType] == "image/png")

            // Another replica (its own memory and disk, empty) signing with another key: the
            // signature is not in the key. A hit from storage, then from memory.
            let (signingKey, salt) = ("0a1b2c3d4e5f", "a0b1c2d3")
            let signer = try URLSigner(key: URLSigningKey(hexKey: signingKey, hexSalt: salt))
            let replica = Self.configuration(endpoint: moto.endpoint, credentials: moto.credentials) { ($0.keys, $0.salts) = ([signingKey], [salt]) }
            try await withRunningServer(replica, metrics: second) { server in
                let signed = signer.signedPath(ImagePathBuilder.path(options: "rs:fit:100:100", sourceURL: "local:///photos/rocket.jpg", format: "png", encoding: .plain))
                let hit = try await server.get(signed)
                #expect(hit.status == 200 && hit.header("x-cache") == "storage")
                #expect(hit.body == made.body && hit.header("etag") == made.header("etag") && hit.header("content-type") == "image/png")
                let again = try await server.get(signed)
                #expect(again.header("x-cache") == "memory")
                // Another cache buster is another key: made.
                let busted = try await server.get(
                    signer.signedPath(ImagePathBuilder.path(options: "cb:2/rs:fit:100:100", sourceURL: "local:///photos/rocket.jpg", format: "png", encoding: .plain))
                )
                #expect(busted.status == 200 && busted.header("x-cache") == "miss")
            }
            #expect(try Self.processed(second) == 1)
            #expect(Self.count(second, "get", "hit") == 1)
            await client.shutdown()
        }
    }

    @Test func withCacheSourcesAReplicaMakingAnotherSizeFetchesNothingFromTheOrigin() async throws {
        try await withMoto(bucket: Self.bucket, objects: ["photos/rocket.jpg=photos/rocket.jpg"]) { moto in
            // The origin: an s3:// source in the same moto (its GETs of the object are counted).
            func replica(_ metrics: TestMetrics) -> ImageServerConfiguration {
                Self.configuration(endpoint: moto.endpoint, credentials: moto.credentials) { configuration in
                    configuration.resultCache.keepsSources = true
                    configuration.usesS3 = true
                    (configuration.s3.endpoint, configuration.s3.region, configuration.s3.credentials) = (moto.endpoint, "us-east-1", moto.credentials)
                }
            }
            let source = "s3://\(Self.bucket)/photos/rocket.jpg"
            let first = TestMetrics()
            try await withRunningServer(replica(first), metrics: first) { server in
                let reply = try await server.get("/unsafe/rs:fit:100:100/plain/\(source)@png")
                #expect(reply.status == 200 && reply.header("x-cache") == "miss")
            }
            // The server's stop awaited its writes.
            #expect(Self.count(first, "source_put", "written") == 1)
            #expect(moto.gets(of: "/\(Self.bucket)/photos/rocket.jpg") == 1)
            let second = TestMetrics()
            try await withRunningServer(replica(second), metrics: second) { server in
                let reply = try await server.get("/unsafe/rs:fit:200:200/plain/\(source)@png")
                #expect(reply.status == 200 && reply.header("x-cache") == "miss")
            }
            #expect(Self.count(second, "source_get", "hit") == 1)
            #expect(moto.gets(of: "/\(Self.bucket)/photos/rocket.jpg") == 1)
        }
    }

    @Test func aTruncatedObjectIsAMissAndIsReplaced() async throws {
        try await withMoto(bucket: Self.bucket, objects: []) { moto in
            let configuration = Self.configuration(endpoint: moto.endpoint, credentials: moto.credentials)
            let client = try Self.bucketClient(moto)
            let key = try Self.objectKey(Self.path, configuration)
            let metrics = TestMetrics()
            try await withRunningServer(configuration, metrics: metrics) { server in
                let made = try await server.get(Self.path)
                #expect(made.status == 200 && made.header("x-cache") == "miss")
                let written = await eventually(within: TestAllowance.eventWait, every: .milliseconds(10)) { Self.count(metrics, "put", "written") == 1 }
                #expect(written)

                // Cut short by hand, its metadata kept (the digest then disagrees with the bytes).
                let object = try #require(try await client.get(key, maximumBytes: 1 << 20))
                let truncated = Data(buffer: object.body).prefix(object.body.readableBytes / 2)
                var headers = try ResultObject.headers(metadata: ResultObject.result(body: object.body, headers: object.headers).metadata, body: truncated)
                headers.removeAll { $0.name == ResultObject.digestField }
                headers.append((ResultObject.digestField, HTTPField.Name(ResultObject.digestField).flatMap { object.headers[$0] } ?? ""))
                try await client.put(key, body: truncated, headers: headers)
            }
            let other = TestMetrics()
            try await withRunningServer(Self.configuration(endpoint: moto.endpoint, credentials: moto.credentials), metrics: other) { server in
                let reply = try await server.get(Self.path)
                #expect(reply.status == 200 && reply.header("x-cache") == "miss")
                #expect(Self.count(other, "get", "damaged") == 1)
                let written = await eventually(within: TestAllowance.eventWait, every: .milliseconds(10)) { Self.count(other, "put", "written") == 1 }
                #expect(written)
                let replaced = try #require(try await client.get(key, maximumBytes: 1 << 20))
                #expect(Data(buffer: replaced.body) == reply.body)
            }
            await client.shutdown()
        }
    }

    @Test func theStoreStoppedMidRunLeavesEveryRequestAnsweredByProcessing() async throws {
        try await withMoto(bucket: Self.bucket, objects: []) { moto in
            let metrics = TestMetrics()
            // Each call to a stopped store waits for its timeout (AsyncHTTPClient tries to connect
            // again until then): shorter here, long enough for moto on a busy machine.
            let configuration = Self.configuration(endpoint: moto.endpoint, credentials: moto.credentials) { $0.resultCache.timeout = TestAllowance.seconds(2) }
            try await withRunningServer(configuration, metrics: metrics) { server in
                let first = try await server.get(Self.path)
                #expect(first.status == 200 && first.header("x-cache") == "miss")
                let written = await eventually(within: TestAllowance.eventWait, every: .milliseconds(10)) { Self.count(metrics, "put", "written") == 1 }
                #expect(written)
                let (getsFailed, putsFailed) = (Self.count(metrics, "get", "failed"), Self.count(metrics, "put", "failed"))
                await moto.stop()
                // Five other results: each made and answered; the store's calls fail, counted.
                var statuses: [Int] = []
                for width in 101...105 {
                    statuses.append(try await server.get(Self.path.replacingOccurrences(of: "100:100", with: "\(width):100")).status)
                }
                #expect(statuses == [200, 200, 200, 200, 200])
                #expect(Self.count(metrics, "get", "failed") - getsFailed == 5)
                let failed = await eventually(within: TestAllowance.eventWait, every: .milliseconds(10)) { Self.count(metrics, "put", "failed") - putsFailed == 5 }
                #expect(failed)
            }
        }
    }

    @Test func aStoreThatHangsIsWaitedForOnlyItsTimeoutAndIsUsedAgainOnceBack() async throws {
        try await withMoto(bucket: Self.bucket, objects: []) { moto in
            let metrics = TestMetrics()
            let configuration = Self.configuration(endpoint: moto.endpoint, credentials: moto.credentials) { $0.resultCache.timeout = TestAllowance.seconds(2) }
            let client = try Self.bucketClient(moto)
            try await withRunningServer(configuration, metrics: metrics) { server in
                // Hung: connections accepted, nothing answered. Made and answered all the same.
                moto.pause()
                let whileHung = try await server.get(Self.path.replacingOccurrences(of: "100:100", with: "101:100"))
                #expect(whileHung.status == 200 && whileHung.header("x-cache") == "miss")
                #expect(Self.count(metrics, "get", "failed") == 1)
                let putFailed = await eventually(within: TestAllowance.eventWait, every: .milliseconds(10)) { Self.count(metrics, "put", "failed") == 1 }
                #expect(putFailed)

                // Back: the next result is written again, whole.
                moto.resume()
                let reply = try await server.get(Self.path)
                #expect(reply.status == 200 && reply.header("x-cache") == "miss")
                let written = await eventually(within: TestAllowance.eventWait, every: .milliseconds(10)) { Self.count(metrics, "put", "written") >= 1 }
                #expect(written)
                let object = try #require(try await client.get(try Self.objectKey(Self.path, configuration), maximumBytes: 1 << 20))
                #expect(Data(buffer: object.body) == reply.body)
            }
            // And read again: another replica's first request is a hit from the store.
            try await withRunningServer(configuration) { server in
                let reply = try await server.get(Self.path)
                #expect(reply.status == 200 && reply.header("x-cache") == "storage")
            }
            await client.shutdown()
        }
    }

    /// A store answering `status` to every call, as a raw HTTP/1.1 reply.
    static func answering(_ status: String) -> RawOrigin.Reply {
        RawOrigin.Reply(prefix: Array("HTTP/1.1 \(status)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
    }

    @Test(arguments: ["500 Internal Server Error", "403 Forbidden", "503 Slow Down"])
    func aFailingStoreIsAnsweredByProcessingAndCountedOrReportedWhenAsked(_ status: String) async throws {
        try await withRawOrigin(Self.answering(status)) { store in
            let metrics = TestMetrics()
            try await withRunningServer(Self.configuration(endpoint: store.url(""), credentials: AWSCredentials(accessKeyID: "AKIA", secretAccessKey: "x")), metrics: metrics) { server in
                let reply = try await server.get(Self.path)
                #expect(reply.status == 200 && reply.header("x-cache") == "miss")
                let again = try await server.get(Self.path)
                #expect(again.header("x-cache") == "memory")
                let counted = await eventually(within: TestAllowance.eventWait, every: .milliseconds(10)) { Self.count(metrics, "put", "failed") == 1 }
                #expect(counted && Self.count(metrics, "get", "failed") == 1)
            }
            // CACHE_REPORT_ERRORS: a failure of the store is the request's.
            let reporting = Self.configuration(endpoint: store.url(""), credentials: nil) { $0.resultCache.reportErrors = true }
            try await withRunningServer(reporting) { server in
                let reply = try await server.get(Self.path)
                #expect(reply.status == 500)
            }
        }
    }

    @Test func aStoreThatNeverAnswersIsBoundedByTheStorageTimeout() async throws {
        // Nothing sent, ever: without the storage's timeout the request would wait for its own
        // (TIMEOUT, 60 s here) and be answered 503.
        try await withRawOrigin(RawOrigin.Reply(prefix: [])) { store in
            let metrics = TestMetrics()
            let configuration = Self.configuration(endpoint: store.url(""), credentials: nil) { $0.resultCache.timeout = 0.2 }
            try await withRunningServer(configuration, metrics: metrics) { server in
                let reply = try await server.get(Self.path)
                #expect(reply.status == 200 && reply.header("x-cache") == "miss")
                #expect(Self.count(metrics, "get", "failed") == 1)
            }
            #expect(Self.count(metrics, "put", "failed") == 1)
        }
    }

    @Test func writesPastTheBoundAreDroppedAndCounted() async throws {
        try await withRawOrigin(RawOrigin.Reply(prefix: [])) { store in
            let metrics = TestMetrics()
            var settings = Self.configuration(endpoint: store.url(""), credentials: nil).resultCache
            settings.maxPendingWrites = 1
            // Long: the first write is in flight until the client is shut down below.
            settings.timeout = 600
            let storage = try #require(try settings.sharedStorage(metrics: ServerMetrics(factory: metrics)))
            let result = StoredResult(body: ByteBuffer(string: "x"), metadata: ResultMetadata(contentType: "image/png", fileExtension: "png", entityTag: "\"t\""))
            let logger = Logger(label: "test")
            try await storage.store(result, data: Data("x".utf8), forKey: ResultKey(text: "a", sourceCookie: nil), logger: logger)
            try await storage.store(result, data: Data("x".utf8), forKey: ResultKey(text: "b", sourceCookie: nil), logger: logger)
            #expect(storage.pendingWrites == 1)
            #expect(Self.count(metrics, "put", "dropped") == 1)
            // A shut-down client fails the write in flight: it ends, counted.
            await storage.client.shutdown()
            await storage.finishWrites()
            #expect(storage.pendingWrites == 0 && Self.count(metrics, "put", "failed") == 1)
        }
    }

    @Test func webimageCacheBucketCountsAndClearsTheStoresResultsAndSourcesAndNothingElse() async throws {
        try await withMoto(bucket: Self.bucket, objects: ["keep.txt=@100", "cache/notes.txt=@10"]) { moto in
            let configuration = Self.configuration(endpoint: moto.endpoint, credentials: moto.credentials)
            let metrics = TestMetrics()
            let paths = [Self.path, Self.path.replacingOccurrences(of: "100:100", with: "120:100")]
            var bytes = 0
            try await withRunningServer(configuration, metrics: metrics) { server in
                for path in paths { bytes += try await server.get(path).body.count }
            }
            // The server's stop awaited its writes.
            #expect(Self.count(metrics, "put", "written") == 2)
            let client = try Self.bucketClient(moto)
            let source = "cache/sources/" + String(repeating: "0123456789abcdef", count: 4)
            try await client.put(source, body: Data(count: 50), headers: [])

            let environment = [
                "IMGPROXY_CACHE_USE": "s3", "IMGPROXY_CACHE_BUCKET": Self.bucket, "IMGPROXY_CACHE_PATH_PREFIX": "/cache/",
                "IMGPROXY_CACHE_S3_ENDPOINT": moto.endpoint, "AWS_REGION": "us-east-1",
                "AWS_ACCESS_KEY_ID": moto.credentials.accessKeyID, "AWS_SECRET_ACCESS_KEY": moto.credentials.secretAccessKey,
            ]
            let stats = try await ServeProcess.output(of: ["cache", "stats", "--bucket"], environment: environment)
            #expect(stats == "s3://results/cache/: 2 results, \(bytes) bytes; 1 sources, 50 bytes\n")
            #expect(try await ServeProcess.output(of: ["cache", "path", "--bucket"], environment: environment) == "s3://results/cache/\n")
            let cleared = try await ServeProcess.output(of: ["cache", "clear", "--bucket"], environment: environment)
            #expect(cleared == "s3://results/cache/: removed 2 results, \(bytes) bytes; 1 sources, 50 bytes\n")
            let after = try await ServeProcess.output(of: ["cache", "stats", "--bucket"], environment: environment)
            #expect(after == "s3://results/cache/: 0 results, 0 bytes; 0 sources, 0 bytes\n")
            for path in paths { #expect(try await client.get(try Self.objectKey(path, configuration), maximumBytes: 1 << 20) == nil) }
            #expect(try await client.get(source, maximumBytes: 1 << 20) == nil)
            // Objects not named as the server names them stay.
            #expect(try await client.get("keep.txt", maximumBytes: 1 << 20)?.body.readableBytes == 100)
            #expect(try await client.get("cache/notes.txt", maximumBytes: 1 << 20)?.body.readableBytes == 10)
            await client.shutdown()

            // Expiry is the bucket's rules: clean refused as a usage error; without CACHE_USE=s3, no store.
            let folder = FileManager.default.temporaryDirectory
            let clean = try await ServeProcess.run(["cache", "clean", "--bucket"], in: folder, environment: environment)
            #expect(clean.status == 64 && clean.standardError.contains("lifecycle rules"))
            let none = try await ServeProcess.run(["cache", "stats", "--bucket"], in: folder)
            #expect(none.status == 64 && none.standardError.contains("is not s3"))
        }
    }

    @Test func clearingTheStoreFollowsTheListingPastEachPageItRemoved() async throws {
        try await withMoto(bucket: Self.bucket, objects: []) { moto in
            let client = try Self.bucketClient(moto)
            // Seven results and two other objects between them, listed three keys a page.
            let keys = (0..<7).map { "cache/" + String(repeating: String($0), count: 64) } + ["cache/1-other", "cache/5-other"]
            for key in keys { try await client.put(key, body: Data(count: 8), headers: []) }
            let settings = Self.configuration(endpoint: moto.endpoint, credentials: moto.credentials).resultCache
            let removed = try await settings.removeSharedStoreContents(pageSize: 3)
            #expect(removed == SharedStoreContents(results: .init(objects: 7, bytes: 56)))
            for key in keys { #expect((try await client.get(key, maximumBytes: 64) != nil) == key.hasSuffix("other"), "\(key)") }
            #expect(try await settings.sharedStoreContents() == SharedStoreContents())
            await client.shutdown()
        }
    }

    @Test func webimageCacheBucketSaysWhatTheStoreAnsweredWhenItFails() async throws {
        try await withRawOrigin(Self.answering("403 Forbidden")) { store in
            let environment = [
                "IMGPROXY_CACHE_USE": "s3", "IMGPROXY_CACHE_BUCKET": Self.bucket, "IMGPROXY_CACHE_S3_ENDPOINT": store.url(""),
                "AWS_ACCESS_KEY_ID": "AKIA", "AWS_SECRET_ACCESS_KEY": "x",
            ]
            let stats = try await ServeProcess.run(["cache", "stats", "--bucket"], in: FileManager.default.temporaryDirectory, environment: environment)
            #expect(stats.status == 1)
            #expect(stats.standardError.hasPrefix("s3://results/: the shared store failed: GET (list) answered 403"), "\(stats.standardError)")
        }
    }

    @Test func aListingIsReadPageByPageAndAnythingElseRefused() throws {
        let page = """
            <?xml version="1.0" encoding="UTF-8"?>
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
              <Name>results</Name><Prefix>cache/</Prefix><KeyCount>2</KeyCount><MaxKeys>2</MaxKeys><IsTruncated>true</IsTruncated>
              <Contents><Key>cache/a</Key><LastModified>2026-12-03T10:00:00.000Z</LastModified><Size>10</Size>
                <Owner><ID>x</ID><DisplayName>y</DisplayName></Owner></Contents>
              <Contents><Key>cache/b &amp; c</Key><Size>0</Size></Contents>
              <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
            </ListBucketResult>
            """
        let listing = try S3ObjectListing(xml: Data(page.utf8))
        #expect(listing.entries == [.init(key: "cache/a", size: 10), .init(key: "cache/b & c", size: 0)])
        #expect(listing.nextContinuationToken == "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=")
        let last = try S3ObjectListing(xml: Data(page.replacingOccurrences(of: "<IsTruncated>true", with: "<IsTruncated>false").utf8))
        #expect(last.nextContinuationToken == nil && last.entries.count == 2)
        for bad in [
            "<Error><Code>AccessDenied</Code></Error>", "not xml", page.replacingOccurrences(of: "<Size>10</Size>", with: ""),
            page.replacingOccurrences(of: "<ListBucketResult", with: "<ListBucket").replacingOccurrences(of: "</ListBucketResult>", with: "</ListBucket>"),
            String(page.prefix(200)),
        ] {
            #expect(throws: S3ObjectListing.Malformed.self) { try S3ObjectListing(xml: Data(bad.utf8)) }
        }
    }

    @Test func anObjectIsAResultOnlyWholeAndWithItsMetadata() throws {
        var metadata = ResultMetadata(contentType: "image/webp", fileExtension: "webp", entityTag: "\"tag\"", lastModified: "Tue, 01 Dec 2026 10:00:00 GMT")
        (metadata.pixelWidth, metadata.pixelHeight) = (10, 20)
        let body = Data((0..<1000).map { UInt8($0 % 251) })
        var headers = HTTPFields()
        for (name, value) in try ResultObject.headers(metadata: metadata, body: body) {
            headers.append(HTTPField(name: try #require(HTTPField.Name(name)), value: value))
        }
        #expect(headers[.contentType] == "image/webp")
        // Content-MD5: the store refuses a body other than the one sent.
        #expect(headers[try #require(HTTPField.Name("content-md5"))].flatMap { Data(base64Encoded: $0) }?.count == 16)
        headers[.contentLength] = "1000"
        #expect(try ResultObject.result(body: ByteBuffer(bytes: body), headers: headers).metadata == metadata)

        // Cut short (what the store says it holds disagrees), altered, or without the metadata.
        #expect(throws: ResultObject.Defect.self) { try ResultObject.result(body: ByteBuffer(bytes: body.prefix(999)), headers: headers) }
        var altered = body
        altered[500] ^= 1
        #expect(throws: ResultObject.Defect.self) { try ResultObject.result(body: ByteBuffer(bytes: altered), headers: headers) }
        var bare = headers
        bare[try #require(HTTPField.Name(ResultObject.metadataField))] = nil
        #expect(throws: ResultObject.Defect.self) { try ResultObject.result(body: ByteBuffer(bytes: body), headers: bare) }
    }

    @Test func theObjectKeyIsThePrefixAndTheDigestOfTheResultKeyWithoutTheSignature() throws {
        var configuration = Self.configuration(endpoint: "http://127.0.0.1:9", credentials: nil)
        (configuration.keys, configuration.salts) = (["736563726574"], ["68656c6c6f"])
        let signed = try URLSigner(key: URLSigningKey(hexKey: "736563726574", hexSalt: "68656c6c6f"))
            .signedPath(ImagePathBuilder.path(options: "rs:fit:100:100", sourceURL: "local:///photos/rocket.jpg", format: "png", encoding: .plain))
        let unsigned = Self.configuration(endpoint: "http://127.0.0.1:9", credentials: nil)
        let key = try Self.objectKey(signed, configuration)
        #expect(key == (try Self.objectKey(Self.path, unsigned)))
        #expect(key.hasPrefix("cache/") && key.count == "cache/".count + 64)
        #expect(key != (try Self.objectKey(Self.path.replacingOccurrences(of: "rs:fit", with: "cb:1/rs:fit"), unsigned)))
    }

    @Test func cacheUseFsKeepsResultsUnderItsRootForAnotherServerOnIt() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-fs-root-" + UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: root) }
        func configuration() -> ImageServerConfiguration {
            .underTest { configuration in
                configuration.localFilesystemRoot = TestServer.imagesFolder.path
                configuration.resultCache.use = .fs
                configuration.resultCache.fsRoot = root.path
                (configuration.resultCache.bucket, configuration.resultCache.pathPrefix) = ("bucket", "prefix")
            }
        }
        let results = root.appendingPathComponent("bucket/prefix/results")
        try await withRunningServer(configuration()) { server in
            let reply = try await server.get(Self.path)
            #expect(reply.header("x-cache") == "miss")
        }
        // The server's stop awaited its disk writes.
        let entries = try FileManager.default.contentsOfDirectory(atPath: results.path).filter { !$0.hasPrefix(".") }
        #expect(!entries.isEmpty)
        // Another server, its own CACHE_DIR, the same root: a disk hit.
        try await withRunningServer(configuration()) { server in
            let reply = try await server.get(Self.path)
            #expect(reply.header("x-cache") == "disk")
        }
    }

    @Test func keyHeadersAndCookiesArePartOfTheKey() async throws {
        let configuration = ImageServerConfiguration.underTest { configuration in
            configuration.localFilesystemRoot = TestServer.imagesFolder.path
            configuration.resultCache.keyHeaders = ["X-Tenant"]
            configuration.resultCache.keyCookies = ["plan"]
        }
        try await withRunningServer(configuration) { server in
            var tiers: [String?] = []
            for headers in [["X-Tenant": "a"], ["X-Tenant": "a"], ["X-Tenant": "b"], ["X-Tenant": "b", "Cookie": "plan=pro; other=1"], ["X-Tenant": "b", "Cookie": "other=2; plan=pro"]] {
                tiers.append(try await server.get(Self.path, headers: headers).header("x-cache"))
            }
            #expect(tiers == ["miss", "memory", "miss", "miss", "memory"])
        }
    }

    @Test func imgproxysCacheSettingsAreReadAndTheUnbuiltStoragesRefused() async throws {
        let configuration = try await ImageServerConfiguration.load(arguments: ["webimage"], environment: [
            "IMGPROXY_CACHE_USE": "s3", "IMGPROXY_CACHE_BUCKET": "b", "IMGPROXY_CACHE_PATH_PREFIX": "p/",
            "IMGPROXY_CACHE_S3_ENDPOINT": "minio:9000", "IMGPROXY_CACHE_S3_ENDPOINT_USE_PATH_STYLE": "false",
            "IMGPROXY_CACHE_KEY_HEADERS": "X-A, X-B", "IMGPROXY_CACHE_KEY_COOKIES": "c", "IMGPROXY_CACHE_REPORT_ERRORS": "true",
            "AWS_REGION": "eu-west-1", "AWS_ACCESS_KEY_ID": "AKIA", "AWS_SECRET_ACCESS_KEY": "s",
        ])
        let cache = configuration.resultCache
        #expect(cache.use == .s3 && cache.bucket == "b" && cache.pathPrefix == "p/" && cache.reportErrors)
        #expect(cache.s3.endpoint == "minio:9000" && !cache.s3.endpointUsesPathStyle && cache.s3.region == "eu-west-1")
        #expect(cache.keyHeaders == ["X-A", "X-B"] && cache.keyCookies == ["c"] && cache.s3.credentials?.accessKeyID == "AKIA")
        for use in ["gcs", "abs", "swift"] {
            await #expect(throws: ImageServerConfigurationError.self) {
                try await ImageServerConfiguration.load(arguments: ["webimage"], environment: ["IMGPROXY_CACHE_USE": use, "IMGPROXY_CACHE_BUCKET": "b"])
            }
        }
        await #expect(throws: ImageServerConfigurationError.self) {
            try await ImageServerConfiguration.load(arguments: ["webimage"], environment: ["IMGPROXY_CACHE_USE": "s3"])
        }
    }
}
