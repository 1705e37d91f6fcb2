import Foundation
import Testing
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

@Suite(.offThePool) struct ConfigurationTests {
    @Test func withNothingSetItListensOnLoopback8080AndCachesInTheDefaultFolder() async throws {
        let configuration = try await ImageServerConfiguration.load(arguments: ["webimage"], environment: [:])
        #expect(configuration.bind == ServerAddress(host: "127.0.0.1", port: 8080))
        // imgproxy's defaults: twice the core count, 20 s to finish after SIGTERM.
        #expect(configuration.workers == 2 * ProcessInfo.processInfo.activeProcessorCount && configuration.shutdownTimeout == 20)
        #expect(configuration.requestsQueueSize == 0 && configuration.timeout == 10 && configuration.downloadTimeout == 5)
        #expect(configuration.ttl == 31_536_000 && configuration.usesETag && !configuration.cacheControlPassthrough)
        #expect(configuration.cacheDirectory.hasSuffix("/swift-webimage") || !configuration.cacheDirectory.isEmpty)
        #expect(configuration.refusalToStart == nil)
    }

    @Test func imgproxysEnvironmentNamesWorkWithTheWebImagePrefix() async throws {
        let configuration = try await ImageServerConfiguration.load(arguments: ["webimage"], environment: [
            "WEBIMAGE_BIND": "0.0.0.0:9000", "WEBIMAGE_KEY": "736563726574,6b6579", "WEBIMAGE_SALT": "68656c6c6f,73616c74",
            "WEBIMAGE_SIGNATURE_SIZE": "8", "WEBIMAGE_MAX_SRC_FILE_SIZE": "1000000", "WEBIMAGE_WORKERS": "3",
            "WEBIMAGE_REQUESTS_QUEUE_SIZE": "7", "WEBIMAGE_TIMEOUT": "2.5", "WEBIMAGE_USE_ETAG": "false",
            "WEBIMAGE_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "1", "WEBIMAGE_PROMETHEUS_BIND": "127.0.0.1:9100",
            "WEBIMAGE_ALLOWED_SOURCES": "https://a.example/,https://b.example/", "IMGPROXY_WORKERS": "99",
        ])
        #expect(configuration.bind == ServerAddress(host: "0.0.0.0", port: 9000))
        #expect(configuration.keys == ["736563726574", "6b6579"] && configuration.salts == ["68656c6c6f", "73616c74"])
        #expect(configuration.signatureSize == 8 && configuration.processing.maxSourceFileSize == 1_000_000)
        #expect(configuration.workers == 3 && configuration.requestsQueueSize == 7 && configuration.timeout == 2.5)
        #expect(!configuration.usesETag && configuration.allowsLoopbackSourceAddresses)
        #expect(configuration.prometheusBind == ServerAddress(host: "127.0.0.1", port: 9100))
        #expect(configuration.allowedSources == ["https://a.example/", "https://b.example/"])
    }

    @Test func flagsWinOverTheEnvironmentWhichWinsOverTheFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-config-\(UUID().uuidString).json")
        try Data(#"{"workers": 5, "timeout": 4, "ttl": 60}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let configuration = try await ImageServerConfiguration.load(
            arguments: ["webimage", "--workers", "9"],
            environment: ["WEBIMAGE_CONFIG": file.path, "WEBIMAGE_WORKERS": "7", "WEBIMAGE_TIMEOUT": "3"]
        )
        #expect(configuration.workers == 9)
        #expect(configuration.timeout == 3)
        #expect(configuration.ttl == 60)
    }

    @Test func everyProblemIsOneLineNamingTheSettingAsTheUserWritesIt() async throws {
        let error = await #expect(throws: ImageServerConfigurationError.self) {
            try await ImageServerConfiguration.load(
                arguments: ["webimage", "--timeout", "soon", "--max-src-resolution", "lots"],
                environment: [
                    "WEBIMAGE_WORKERS": "two", "WEBIMAGE_BIND": "nowhere", "WEBIMAGE_KEY": "00", "WEBIMAGE_SALT": "00,11",
                    "WEBIMAGE_PREFERRED_FORMATS": "jpeg,bogus", "WEBIMAGE_FORMAT_QUALITY": "webp=0", "WEBIMAGE_NEW_RELIC_KEY": "abc",
                ]
            )
        }
        #expect(error?.problems == [
            "WEBIMAGE_BIND (--bind): \"nowhere\" is not HOST:PORT",
            "WEBIMAGE_WORKERS (--workers): \"two\" is not a whole number in 1...4096",
            "WEBIMAGE_TIMEOUT (--timeout): \"soon\" is not a number of seconds above 0",
            "WEBIMAGE_FORMAT_QUALITY (--format-quality): \"webp=0\": 0 is not a quality in 1...100",
            "WEBIMAGE_PREFERRED_FORMATS (--preferred-formats): \"jpeg,bogus\": bogus is not an image format",
            "WEBIMAGE_MAX_SRC_RESOLUTION (--max-src-resolution): \"lots\" is not a number of megapixels",
            "WEBIMAGE_NEW_RELIC_KEY (--new-relic-key): not supported yet; the server does not start with it set",
            "WEBIMAGE_KEY (--key) and WEBIMAGE_SALT (--salt): 1 keys for 2 salts (they pair in order)",
        ])
    }

    /// A setting's value written as text reads back as the same value (what the settings fuzz
    /// target checks of every configuration): megapixels to the nearest pixel, not truncated.
    @Test func megapixelsWrittenAsTextReadBackAsTheSamePixels() throws {
        let megapixels = SettingParser<Int>.megapixels
        #expect(try megapixels.parse("0.123456") == 123_456)
        for pixels in [1, 123_456, 16_777_216, 50_000_000] {
            #expect(try megapixels.parse(megapixels.text(pixels)) == pixels)
        }
    }

    /// Found by the settings fuzz target (its input in Tests/Images/fuzz-regressions, where
    /// fuzz.sh checks for the leak): reading an empty file leaked Foundation's buffer. An empty
    /// file has no profile; one that is not UTF-8 does not read.
    @Test func anEmptyCredentialsFileHasNoProfileAndOneNotUTF8IsUnreadable() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-credentials-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data().write(to: file)
        #expect(throws: ImageServerConfigurationError(problems: ["AWS_PROFILE: no profile [default] in \(file.path)"])) {
            try AWSCredentials.fromEnvironment(["AWS_SHARED_CREDENTIALS_FILE": file.path, "AWS_PROFILE": "default"])
        }
        try Data([0x5B, 0x64, 0x5D, 0x0A, 0xFF, 0xFE]).write(to: file)
        #expect(throws: ImageServerConfigurationError(problems: ["AWS_SHARED_CREDENTIALS_FILE: cannot read the shared credentials file \(file.path)"])) {
            try AWSCredentials.fromEnvironment(["AWS_SHARED_CREDENTIALS_FILE": file.path])
        }
    }

    @Test func unsignedURLsOnAnAddressOthersReachNeedToBeAllowed() throws {
        var configuration = ImageServerConfiguration()
        configuration.bind = ServerAddress(host: "0.0.0.0", port: 8080)
        let refusal = try #require(configuration.refusalToStart)
        #expect(refusal.problems == [
            "WEBIMAGE_BIND (--bind): refusing to serve unsigned URLs on 0.0.0.0:8080, which other machines can reach: "
                + "set WEBIMAGE_KEY (--key) and WEBIMAGE_SALT (--salt), or WEBIMAGE_ALLOW_UNSIGNED (--allow-unsigned)",
        ])
        configuration.allowsUnsigned = true
        #expect(configuration.refusalToStart == nil)
        configuration.allowsUnsigned = false
        configuration.keys = ["00"]
        configuration.salts = ["00"]
        #expect(configuration.refusalToStart == nil)
        #expect(ServerAddress("[::1]:8080")?.isLoopback == true && ServerAddress(":8080")?.host == "0.0.0.0")
    }
}
