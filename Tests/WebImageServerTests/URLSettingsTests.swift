import Foundation
import ImageEngine
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// How a URL is read: `BASE_URL`, `URL_REPLACEMENTS`, `PATH_PREFIX`, `ARGUMENTS_SEPARATOR`,
/// `BASE64_URL_INCLUDES_FILENAME`, `ALLOWED_PROCESSING_OPTIONS`, over HTTP against an origin.
@Suite(.offThePool) struct URLSettingsTests {
    static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    static func size(_ reply: ServerUnderTest.Reply) throws -> (Int, Int) {
        let image = try ImageCodersManager.shared.decode(reply.body, options: ImageCoderOptions())
        return (image.pixelWidth, image.pixelHeight)
    }

    @Test func baseURLIsPutBeforeSourcesThatDoNotStartWithIt() async throws {
        try await withOrigin { origin in
            let base = origin.url("/images/").absoluteString
            let configuration = ImageServerConfiguration.fetchingFromLoopback { $0.processing.baseURL = base }
            try await withRunningServer(configuration) { server in
                let plain = try await server.get("/unsafe/rs:fit:100:100/plain/photos/rocket.jpg@png")
                #expect(plain.status == 200)
                #expect(try Self.size(plain) == (100, 67))
                let base64 = try await server.get("/unsafe/rs:fit:50:50/" + Base64URL.encode(Array("photos/rocket.jpg".utf8)) + ".png")
                #expect(base64.status == 200)
                #expect(try Self.size(base64) == (50, 33))
                // A URL that starts with the base already is taken as it is.
                let whole = try await server.get("/unsafe/rs:fit:100:100/plain/" + Self.escaped(base + "photos/rocket.jpg") + "@png")
                #expect(whole.status == 200 && whole.header("x-cache") == "memory")
            }
            #expect(origin.requestCount("/images/photos/rocket.jpg") == 1)
        }
    }

    @Test func urlReplacementsRewriteTheStartOfSourceURLs() async throws {
        try await withOrigin { origin in
            let images = origin.url("/images/").absoluteString
            let configuration = ImageServerConfiguration.fetchingFromLoopback {
                $0.processing.urlReplacements = (try? URLReplacement.list(parsing: "mycdn://*/=\(images)${1}/;photos/=\(images)photos/")) ?? []
            }
            try await withRunningServer(configuration) { server in
                let rewritten = try await server.get("/unsafe/rs:fit:100:100/plain/mycdn://photos/rocket.jpg@png")
                #expect(rewritten.status == 200)
                #expect(try Self.size(rewritten) == (100, 67))
                // Each replacement in turn: the second makes a relative URL a full one.
                let relative = try await server.get("/unsafe/rs:fit:60:60/plain/photos/rocket.jpg@png")
                #expect(relative.status == 200)
                #expect(try Self.size(relative) == (60, 40))
            }
            #expect(origin.requestCount("/images/photos/rocket.jpg") == 1)
        }
    }

    @Test func urlReplacementsReadAsImgproxyReadsThem() throws {
        let replacement = URLReplacement(pattern: "http://*.example.com/*/", replacement: "s3://$1-bucket/${2}x/$$/$9/$")
        #expect(replacement.applied(to: "http://img.example.com/a/b/c.jpg") == "s3://img-bucket/ax/$//$b/c.jpg")
        #expect(replacement.applied(to: "https://img.example.com/a/b.jpg") == "https://img.example.com/a/b.jpg")
        // A run takes as much as it can: the last `.example.com` before a `/`.
        let greedy = URLReplacement(pattern: "http://*.com", replacement: "[$1]")
        #expect(greedy.applied(to: "http://a.com.b.com/x") == "[a.com.b]/x")
        // `$1x` names group `1x`, which there is not; `$0` is the whole match.
        #expect(URLReplacement(pattern: "a*c", replacement: "$1x|$0").applied(to: "abc/d") == "|abc/d")
        #expect(try URLReplacement.list(parsing: "a=b;c=d=e").map(\.replacement) == ["b", "d=e"])
        #expect(throws: ImageServerConfigurationError.self) { try URLReplacement.list(parsing: "a=b;") }
        #expect(throws: ImageServerConfigurationError.self) { try URLReplacement.list(parsing: "a") }
    }

    /// A pattern with several `*` in one segment against a long run that almost matches: a
    /// backtracking matcher tries every split of the run (n^stars), here 8,000 characters a
    /// request may carry; Go's regexp, and this matcher, stay linear in the URL's length.
    @Test(.timeLimit(.minutes(TestAllowance.minutes(1))))
    func urlReplacementsMatchInTimeLinearInTheURL() {
        let replacement = URLReplacement(pattern: "http://*-*-*-*.example.com/", replacement: "$1|$2|$3|$4")
        let run = String(repeating: "-", count: 8_000)
        // This thread's CPU time: the work, whatever else the machine runs.
        let started = WorkBudget.threadCPUTime
        #expect(replacement.applied(to: "http://" + run + "/a.jpg") == "http://" + run + "/a.jpg")
        #expect(replacement.applied(to: "http://a-b-c-d-e.example.com/x") == "a-b|c|d|ex")
        #expect(replacement.applied(to: "http://" + run + ".example.com/x") == String(repeating: "-", count: 7_997) + "|||x")
        #expect(WorkBudget.threadCPUTime - started < TestAllowance.time(.seconds(1)))
        // Runs are of whole characters: a combining mark is not split from its letter.
        #expect(URLReplacement(pattern: "x*", replacement: "[$1]").applied(to: "xe\u{301}/y") == "[e\u{301}]/y")
        #expect(URLReplacement(pattern: "x**y", replacement: "[$1][$2]").applied(to: "xaby/") == "[ab][]/")
    }

    @Test func pathPrefixPutsEveryRouteUnderIt() async throws {
        try await withOrigin { origin in
            let read = try await ImageServerConfiguration.load(arguments: ["webimage"], environment: [
                "IMGPROXY_PATH_PREFIX": "img/", "IMGPROXY_HEALTH_CHECK_PATH": "/ready/", "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true",
            ])
            #expect(read.pathPrefix == "/img" && read.healthCheckPath == "/ready")
            let configuration = ImageServerConfiguration.fetchingFromLoopback {
                ($0.pathPrefix, $0.healthCheckPath) = (read.pathPrefix, read.healthCheckPath)
            }
            let source = Self.escaped(origin.url("/images/photos/rocket.jpg").absoluteString)
            try await withRunningServer(configuration) { server in
                let image = try await server.get("/img/unsafe/rs:fit:100:100/plain/\(source)@png")
                #expect(image.status == 200)
                #expect(try Self.size(image) == (100, 67))
                #expect(try await server.get("/unsafe/rs:fit:100:100/plain/\(source)@png").status == 404)
                for path in ["/img/health", "/img/ready"] {
                    let health = try await server.get(path)
                    #expect(health.status == 200 && String(decoding: health.body, as: UTF8.self) == "OK", "\(path)")
                }
                #expect(try await server.get("/health").status == 404)
            }
        }
        #expect(throws: ImageServerConfigurationError.self) {
            _ = try SettingParser<String>.urlPath.parse("/a b")
        }
    }

    @Test func argumentsSeparatorSplitsOptionsInURLsAndPresets() async throws {
        try await withOrigin { origin in
            let source = Self.escaped(origin.url("/images/photos/rocket.jpg").absoluteString)
            let configuration = ImageServerConfiguration.fetchingFromLoopback {
                $0.processing.argumentsSeparator = ","
                $0.processing.presets = ["small=rs,fit,50,50"]
            }
            try await withRunningServer(configuration) { server in
                let image = try await server.get("/unsafe/rs,fit,100,100/plain/\(source)@png")
                #expect(image.status == 200)
                #expect(try Self.size(image) == (100, 67))
                let preset = try await server.get("/unsafe/pr,small/plain/\(source)@png")
                #expect(preset.status == 200)
                #expect(try Self.size(preset) == (50, 33))
                // With `,` as the separator, `rs:fit:100:100` has none: it is read as the source.
                #expect(try await server.get("/unsafe/rs:fit:100:100/plain/\(source)@png").status == 404)
            }
        }
    }

    @Test func base64URLsMayEndInAFileName() async throws {
        try await withOrigin { origin in
            let encoded = Base64URL.encode(Array(origin.url("/images/photos/rocket.jpg").absoluteString.utf8))
            let chunks = stride(from: 0, to: encoded.count, by: 16).map { start in
                String(encoded.dropFirst(start).prefix(16))
            }.joined(separator: "/")
            let configuration = ImageServerConfiguration.fetchingFromLoopback { $0.processing.base64URLIncludesFilename = true }
            try await withRunningServer(configuration) { server in
                let named = try await server.get("/unsafe/rs:fit:100:100/\(chunks).png/rocket-on-the-pad.jpg")
                #expect(named.status == 200 && named.header("content-type") == "image/png")
                #expect(try Self.size(named) == (100, 67))
                // One segment is the URL itself, never a file name.
                let single = try await server.get("/unsafe/rs:fit:100:100/\(encoded).png")
                #expect(single.status == 200 && single.header("x-cache") == "memory")
            }
            try await withRunningServer(.fetchingFromLoopback()) { server in
                let reply = try await server.get("/unsafe/rs:fit:100:100/\(chunks).png/rocket-on-the-pad.jpg")
                #expect(reply.status == 404)
            }
        }
    }

    @Test func allowedProcessingOptionsHoldURLsToTheNamesAsWrittenButNotPresetContents() async throws {
        try await withOrigin { origin in
            let source = Self.escaped(origin.url("/images/photos/rocket.jpg").absoluteString)
            let read = try await ImageServerConfiguration.load(arguments: ["webimage"], environment: [
                "IMGPROXY_ALLOWED_PROCESSING_OPTIONS": "rs, pr", "IMGPROXY_PRESETS": "thumb=resize:fit:40:40/q:70",
            ])
            #expect(read.processing.allowedProcessingOptions == ["rs", "pr"])
            let configuration = ImageServerConfiguration.fetchingFromLoopback { $0.processing = read.processing }
            try await withRunningServer(configuration) { server in
                let allowed = try await server.get("/unsafe/rs:fit:100:100/plain/\(source)@png")
                #expect(allowed.status == 200)
                let preset = try await server.get("/unsafe/pr:thumb/plain/\(source)@png")
                #expect(preset.status == 200)
                #expect(try Self.size(preset) == (40, 27))
                for (options, name) in [("rs:fit:100:100/w:50", "w"), ("resize:fit:100:100", "resize"), ("preset:thumb", "preset")] {
                    let refused = try await server.get("/unsafe/\(options)/plain/\(source)@png")
                    #expect(refused.status == 404, "\(options)")
                    #expect(String(decoding: refused.body, as: UTF8.self) == "Processing option not allowed: \(name)\n")
                }
            }
            #expect(origin.requestCount("/images/photos/rocket.jpg") == 1)
        }
    }
}
