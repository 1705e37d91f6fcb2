import Foundation
import Testing
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// How `s3://` sources are read, where their requests go, and where their credentials come from.
@Suite("S3 addressing and credentials", .offThePool)
struct S3AddressingTests {
    @Test func sourcesAreReadAsImgproxyReadsThem() {
        #expect(S3ObjectAddress("s3://photos/dir/a b.jpg") == S3ObjectAddress(bucket: "photos", key: "dir/a b.jpg"))
        #expect(S3ObjectAddress("S3://photos//lead.jpg")?.key == "lead.jpg")
        #expect(S3ObjectAddress("s3://photos/k.jpg?versionId=v%2B1")?.versionID == "v+1")
        #expect(S3ObjectAddress("s3://photos/k.jpg?3HL4kqtJ")?.versionID == "3HL4kqtJ")
        #expect(S3ObjectAddress("s3://photos/k#1.jpg")?.key == "k#1.jpg")
        #expect(S3ObjectAddress("s3://photos/k.jpg?versionId=v1")?.description == "s3://photos/k.jpg?versionId=v1")
        for refused in ["s3://photos/", "s3:///k.jpg", "s3://pho@tos/k.jpg", "s3://photos", "gs://photos/k.jpg"] {
            #expect(S3ObjectAddress(refused) == nil, "\(refused)")
        }
    }

    @Test func objectsAreAddressedOnAWSOrTheConfiguredStore() throws {
        var settings = S3Settings()
        let aws = try #require(S3Source.Endpoint(settings: settings, region: "eu-west-1"))
        #expect(aws.url(for: S3ObjectAddress(bucket: "photos", key: "a b/ሴ+.jpg"))?.absoluteString
            == "https://photos.s3.eu-west-1.amazonaws.com/a%20b/%E1%88%B4%2B.jpg")
        // A dotted name breaks the certificate's wildcard: path style.
        #expect(aws.url(for: S3ObjectAddress(bucket: "my.photos", key: "k", versionID: "v+1"))?.absoluteString
            == "https://s3.eu-west-1.amazonaws.com/my.photos/k?versionId=v%2B1")
        #expect(aws.allowedHosts == ["s3.eu-west-1.amazonaws.com", "*.s3.eu-west-1.amazonaws.com"])

        settings.endpoint = "minio.internal:9000/"
        let minio = try #require(S3Source.Endpoint(settings: settings, region: "us-east-1"))
        #expect(minio.url(for: S3ObjectAddress(bucket: "photos", key: "k.jpg"))?.absoluteString == "http://minio.internal:9000/photos/k.jpg")
        #expect(minio.allowedHosts == ["minio.internal"])
        settings.endpoint = "https://storage.example.com/s3"
        settings.endpointUsesPathStyle = false
        let virtual = try #require(S3Source.Endpoint(settings: settings, region: "us-east-1"))
        #expect(virtual.url(for: S3ObjectAddress(bucket: "photos", key: "k.jpg"))?.absoluteString == "https://photos.storage.example.com/s3/k.jpg")
        settings.endpoint = "http://"
        #expect(S3Source.Endpoint(settings: settings, region: "us-east-1") == nil)
    }

    @Test func bucketsAreAllowedAndDenied() {
        var settings = S3Settings()
        #expect(settings.allows(bucket: "any"))
        settings.allowedBuckets = ["photos", "private"]
        settings.deniedBuckets = ["private"]
        #expect(settings.allows(bucket: "photos") && !settings.allows(bucket: "private") && !settings.allows(bucket: "other"))
    }

    @Test func credentialsComeFromTheEnvironmentThenTheSharedFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-aws-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent(".aws"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try """
        ; comment
        [default]
        aws_access_key_id = AKIDDEFAULT
        aws_secret_access_key = default-secret
        [profile other]
        aws_access_key_id=AKIDOTHER
        aws_secret_access_key=other-secret
        aws_session_token=other-token
        [broken]
        aws_access_key_id=AKIDBROKEN
        """.write(to: folder.appendingPathComponent(".aws/credentials"), atomically: true, encoding: .utf8)
        let home = ["HOME": folder.path]
        let environment = ["AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "env-secret", "AWS_SESSION_TOKEN": "env-token"]
        #expect(try AWSCredentials.fromEnvironment(home.merging(environment) { $1 })
            == AWSCredentials(accessKeyID: "AKIDENV", secretAccessKey: "env-secret", sessionToken: "env-token"))
        #expect(try AWSCredentials.fromEnvironment(home) == AWSCredentials(accessKeyID: "AKIDDEFAULT", secretAccessKey: "default-secret"))
        #expect(try AWSCredentials.fromEnvironment(home.merging(["AWS_PROFILE": "other"]) { $1 })
            == AWSCredentials(accessKeyID: "AKIDOTHER", secretAccessKey: "other-secret", sessionToken: "other-token"))
        #expect(try AWSCredentials.fromEnvironment(["HOME": folder.path + "/nowhere"]) == nil)
        for (environment, problem) in [
            (home.merging(["AWS_PROFILE": "missing"]) { $1 }, "AWS_PROFILE: no profile [missing]"),
            (home.merging(["AWS_PROFILE": "broken"]) { $1 }, "profile [broken] lacks"),
            (["AWS_SHARED_CREDENTIALS_FILE": folder.path + "/none"], "AWS_SHARED_CREDENTIALS_FILE: cannot read"),
            (["AWS_ACCESS_KEY_ID": "AKIDENV"], "one is set without the other"),
        ] {
            #expect(throws: ImageServerConfigurationError.self) { try AWSCredentials.fromEnvironment(environment) }
            do {
                _ = try AWSCredentials.fromEnvironment(environment)
            } catch {
                #expect(error.problems.contains { $0.contains(problem) }, "\(error)")
                #expect(!error.description.contains("default-secret") && !error.description.contains("other-secret"))
            }
        }
    }

    @Test func theS3SettingsNotBuiltAndTheOtherStoresStopTheServer() async throws {
        for name in ["IMGPROXY_S3_ASSUME_ROLE_ARN", "WEBIMAGE_S3_ACCESS_POINTS", "IMGPROXY_USE_GCS", "IMGPROXY_USE_ABS", "WEBIMAGE_USE_SWIFT"] {
            await #expect(throws: ImageServerConfigurationError.self, "\(name)") {
                try await ImageServerConfiguration.load(arguments: ["webimage"], environment: [name: "true"])
            }
        }
        let configuration = try await ImageServerConfiguration.load(arguments: ["webimage"], environment: [
            "WEBIMAGE_USE_S3": "true", "IMGPROXY_S3_REGION": "eu-north-1", "AWS_REGION": "us-east-2", "HOME": "/nonexistent",
            "IMGPROXY_S3_ALLOWED_BUCKETS": "a, b", "IMGPROXY_S3_DENIED_BUCKETS": "c", "IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE": "false",
        ])
        #expect(configuration.usesS3 && configuration.s3.region == "eu-north-1" && configuration.s3.credentials == nil)
        #expect(configuration.s3.allowedBuckets == ["a", "b"] && configuration.s3.deniedBuckets == ["c"] && !configuration.s3.endpointUsesPathStyle)
        // gs:// and the like are not sources: 404.
        let parser = try configuration.makeParser()
        #expect(throws: ImageServerError.self) { try parser.parse(path: "/unsafe/plain/gs://photos/k.jpg", now: Date()) }
        #expect(try parser.parse(path: "/unsafe/plain/s3://photos/k.jpg", now: Date()).source == .s3(S3ObjectAddress(bucket: "photos", key: "k.jpg")))
    }
}
