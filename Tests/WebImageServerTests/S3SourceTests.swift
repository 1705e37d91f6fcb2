import Foundation
import Testing
@testable import WebImage
import WebImageSupport
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// `s3://` sources against a real S3-compatible server on loopback (moto, with IAM
/// authentication on, so every request must carry a valid signature): the image server as a user
/// runs it, asked over HTTP.
@Suite("S3 sources", .offThePool)
struct S3SourceTests {
    static let bucket = "photos"
    static let objects = [
        "photos/rocket.jpg=photos/rocket.jpg",
        "a b/ሴ+(1).jpg=photos/rocket.jpg",
        "big.jpg=@3000000",
        // Two versions: 640x427, then 300x300.
        "v.img=photos/rocket.jpg", "v.img=sdwebimage/TestImage.png",
        "shared.jpg=photos/rocket.jpg",
    ]

    /// The unsigned path of `source` (percent-encoded whole, as a plain source may be) with `options`.
    static func path(_ source: String, options: String = "rs:fit:100:100") -> String {
        "/unsafe/\(options)/plain/\(source.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")@png"
    }

    static func configuration(_ moto: MotoServer, credentials: AWSCredentials?) -> ImageServerConfiguration {
        .underTest { configuration in
            configuration.usesS3 = true
            configuration.s3.endpoint = moto.endpoint
            configuration.s3.region = "us-east-1"
            configuration.s3.credentials = credentials
            configuration.processing.maxSourceFileSize = 1_000_000
        }
    }

    static func size(_ reply: ServerUnderTest.Reply) throws -> [Int] {
        let image = try ImageCodersManager.shared.decode(reply.body, options: ImageCoderOptions())
        return [image.pixelWidth, image.pixelHeight]
    }

    @Test func aPrivateBucketIsReadSignedWithItsVersionsItsByteLimitAndTheSourceStore() async throws {
        try await withMoto(bucket: Self.bucket, objects: Self.objects) { moto in
            // Not allowed to fetch from loopback: the endpoint is trusted by configuration.
            let configuration = Self.configuration(moto, credentials: moto.credentials)
            #expect(!configuration.allowsLoopbackSourceAddresses)
            try await withRunningServer(configuration) { server in
                let first = try await server.get(Self.path("s3://photos/photos/rocket.jpg"))
                #expect(first.status == 200 && first.header("content-type") == "image/png")
                #expect(try Self.size(first) == [100, 67])
                #expect(first.header("content-disposition") == "inline; filename=\"rocket.png\"")
                let tag = try #require(first.header("etag"))
                let notModified = try await server.get(Self.path("s3://photos/photos/rocket.jpg"), headers: ["If-None-Match": tag])
                #expect(notModified.status == 304 && notModified.body.isEmpty)

                // A key with a space, a non-ASCII letter, a plus and brackets: signed as S3 reads it.
                let odd = try await server.get(Self.path("s3://photos/a b/ሴ+(1).jpg"))
                #expect(odd.status == 200 && (try? Self.size(odd)) == [100, 67])

                // Versions: the latest by default, an earlier one by `?versionId=` or imgproxy's `?ID`.
                let versions = try #require(moto.versions["v.img"])
                #expect(try Self.size(try await server.get(Self.path("s3://photos/v.img"))) == [100, 100])
                #expect(try Self.size(try await server.get(Self.path("s3://photos/v.img?versionId=\(versions[0])"))) == [100, 67])
                #expect(try Self.size(try await server.get(Self.path("s3://photos/v.img?\(versions[0])", options: "rs:fit:50:50"))) == [50, 33])

                // Missing: 404; larger than MAX_SRC_FILE_SIZE: 422.
                #expect(try await server.get(Self.path("s3://photos/nothing.jpg")).status == 404)
                #expect(try await server.get(Self.path("s3://photos/big.jpg")).status == 422)
                #expect(try await server.get(Self.path("s3://nobucket/photos/rocket.jpg")).status == 404)

                // The endpoint written as an http:// source meets the server's guard: refused.
                let direct = try await server.get(Self.path("\(moto.endpoint)/photos/photos/rocket.jpg"))
                #expect(direct.status == 404)

                // Another size of a source used before: made from the source store, with the object
                // gone from the bucket; that second use writes the source to the store's disk.
                try await moto.delete(bucket: Self.bucket, key: "photos/rocket.jpg")
                #expect(try await server.get(Self.path("s3://photos/photos/rocket.jpg?versionId=gone")).status == 404)
                let other = try await server.get(Self.path("s3://photos/photos/rocket.jpg", options: "rs:fit:200:200"))
                #expect(other.status == 200 && (try? Self.size(other)) == [200, 133])
                #expect(moto.gets(of: "/photos/photos/rocket.jpg") == 1)
                // (The store's file: the library's disk cache names it from the key.)
                let file = server.cacheFolder + "/sources/" + DiskCacheFileName.forKey("s3://photos/photos/rocket.jpg")
                let stored = await eventually(within: TestAllowance.eventWait, every: .milliseconds(20)) {
                    ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? Int) == 112_525
                }
                #expect(stored)
            }
        }
    }

    @Test func aWrongSecretOrNoneIsRefusedAndAnImgproxyEnvironmentIsReadAsItIs() async throws {
        try await withMoto(bucket: Self.bucket, objects: ["photos/rocket.jpg=photos/rocket.jpg"]) { moto in
            let path = Self.path("s3://photos/photos/rocket.jpg")
            var wrong = moto.credentials
            wrong.secretAccessKey = "not" + wrong.secretAccessKey
            for credentials in [wrong, nil] {
                try await withRunningServer(Self.configuration(moto, credentials: credentials)) { server in
                    let reply = try await server.get(path)
                    #expect(reply.status == 404 && String(decoding: reply.body, as: UTF8.self) == "Source is unreachable\n")
                }
            }

            // imgproxy's names, the endpoint without a scheme, the key in a shared credentials file.
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-aws-" + UUID().uuidString)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("credentials")
            try """
            [default]
            aws_access_key_id = AKIAWRONGWRONGWRONG1
            aws_secret_access_key = wrong
            # the one the server reads
            [images]
            aws_access_key_id = \(moto.credentials.accessKeyID)
            aws_secret_access_key=\(moto.credentials.secretAccessKey)
            """.write(to: file, atomically: true, encoding: .utf8)
            var configuration = try await ImageServerConfiguration.load(arguments: ["webimage"], environment: [
                "IMGPROXY_USE_S3": "true", "IMGPROXY_S3_ENDPOINT": "127.0.0.1:\(moto.port)",
                "AWS_DEFAULT_REGION": "us-east-1", "AWS_SHARED_CREDENTIALS_FILE": file.path, "AWS_PROFILE": "images",
            ])
            #expect(configuration.usesS3 && configuration.s3.region == "us-east-1" && configuration.s3.endpointUsesPathStyle)
            #expect(configuration.s3.credentials?.accessKeyID == moto.credentials.accessKeyID)
            let test = ImageServerConfiguration.underTest()
            (configuration.bind, configuration.cacheDirectory, configuration.timeout, configuration.downloadTimeout) =
                (test.bind, test.cacheDirectory, test.timeout, test.downloadTimeout)
            try await withRunningServer(configuration) { server in
                let reply = try await server.get(path)
                #expect(reply.status == 200 && (try? Self.size(reply)) == [100, 67])
            }
        }
    }

    @Test func identicalFetchesOfAnObjectShareOneRequest() async throws {
        try await withMoto(bucket: Self.bucket, objects: Self.objects.filter { $0.hasPrefix("shared.jpg") }) { moto in
            var settings = S3Settings()
            settings.endpoint = moto.endpoint
            settings.region = "us-east-1"
            settings.credentials = moto.credentials
            let source = try #require(S3Source(settings: settings, base: ImageServer.makeDownloaderConfig(configuration: .underTest())))
            source.downloader.isSuspended = true
            let object = S3ObjectAddress(bucket: Self.bucket, key: "shared.jpg")
            // Three callers while the downloader holds its queue: once all three have joined,
            // one download waits for them all.
            let fetches = (0..<3).map { _ in
                Task { try await source.fetch(object, maximumBytes: 1 << 20) }
            }
            let joined = await eventually(within: TestAllowance.eventWait) { source.downloader.currentCallerCount == 3 }
            #expect(joined && source.downloader.currentDownloadCount == 1)
            source.downloader.isSuspended = false
            var bodies: [Data] = []
            for fetch in fetches { bodies.append(try await fetch.value.data) }
            #expect(bodies.allSatisfy { $0.count == 112_525 })
            #expect(moto.gets(of: "/photos/shared.jpg") == 1)
        }
    }
}
