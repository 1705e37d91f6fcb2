import Foundation
import NIOHTTP1
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// What a request must carry and what a response carries: `SECRET`, `ALLOW_ORIGIN` and
/// `OPTIONS`, `HEAD`, `ENABLE_DEBUG_HEADERS`, `COOKIE_PASSTHROUGH`, `HEALTH_CHECK_PATH`, over
/// HTTP against an origin.
@Suite(.offThePool) struct HTTPSettingsTests {
    static func path(_ origin: TestServer, _ route: String = "/images/photos/rocket.jpg", options: String = "rs:fit:300:200") -> String {
        "/unsafe/\(options)/plain/" + (origin.url(route).absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") + "@jpg"
    }

    @Test func theBearerSecretIsRequiredOfImageRequestsAndOfNothingElse() async throws {
        try await withOrigin { origin in
            let read = try await ImageServerConfiguration.load(arguments: ["webimage"], environment: ["IMGPROXY_SECRET": "s3cr3t token"])
            #expect(read.secret == "s3cr3t token")
            let configuration = ImageServerConfiguration.fetchingFromLoopback { $0.secret = read.secret }
            let path = Self.path(origin)
            try await withRunningServer(configuration) { server in
                for headers in [[:], ["Authorization": "Bearer wrong"], ["Authorization": "s3cr3t token"], ["Authorization": "Bearer s3cr3t toke"], ["Authorization": "Bearer s3cr3t token2"]] {
                    for method in [HTTPMethod.GET, .HEAD] {
                        let refused = try await server.send(method, path, headers: headers)
                        #expect(refused.status == 403 && refused.header("cache-control") == "no-store", "\(method) \(headers)")
                        if method == .GET { #expect(String(decoding: refused.body, as: UTF8.self) == "Forbidden\n") }
                    }
                }
                #expect(origin.requestCount("/images/photos/rocket.jpg") == 0)
                let accepted = try await server.get(path, headers: ["Authorization": "Bearer s3cr3t token"])
                #expect(accepted.status == 200 && accepted.header("content-type") == "image/jpeg")
                // A result in memory is no way round it.
                #expect(try await server.get(path).status == 403)
                #expect(try await server.get("/health").status == 200)
                #expect(try await server.send(.OPTIONS, path).status == 200)
            }
        }
    }

    @Test func allowOriginPutsCORSHeadersOnImagesTheirErrorsAndOptions() async throws {
        try await withOrigin { origin in
            let configuration = ImageServerConfiguration.fetchingFromLoopback {
                $0.allowOrigin = "https://app.example.com"
                $0.secret = "token"
            }
            let path = Self.path(origin)
            try await withRunningServer(configuration) { server in
                let replies = [
                    try await server.get(path, headers: ["Authorization": "Bearer token"]),
                    try await server.get(path),                                                          // 403
                    try await server.get("/unsafe/nonsense:1/plain/x@jpg", headers: ["Authorization": "Bearer token"]),   // 400
                    try await server.send(.OPTIONS, path, headers: ["Origin": "https://app.example.com", "Access-Control-Request-Method": "GET"]),
                ]
                #expect(replies.map(\.status) == [200, 403, 400, 200])
                for reply in replies {
                    #expect(reply.header("access-control-allow-origin") == "https://app.example.com")
                    #expect(reply.header("access-control-allow-methods") == "GET, OPTIONS")
                }
                #expect(replies[3].body.isEmpty)
                #expect(try await server.get("/health").header("access-control-allow-origin") == nil)
            }
            try await withRunningServer(.fetchingFromLoopback()) { server in
                let reply = try await server.get(path)
                #expect(reply.status == 200 && reply.header("access-control-allow-origin") == nil)
                #expect(try await server.send(.OPTIONS, path).status == 200)
            }
        }
    }

    @Test func headAnswersTheHeadersOfAGetWithoutItsBody() async throws {
        try await withOrigin { origin in
            let path = Self.path(origin)
            try await withRunningServer(.fetchingFromLoopback()) { server in
                let head = try await server.send(.HEAD, path)
                #expect(head.status == 200 && head.body.isEmpty && head.header("x-cache") == "miss")
                let get = try await server.get(path)
                #expect(get.header("x-cache") == "memory")
                for name in ["content-type", "content-length", "etag", "cache-control", "content-disposition"] {
                    #expect(head.header(name) != nil && head.header(name) == get.header(name), "\(name)")
                }
                #expect(head.header("content-length") == String(get.body.count))
                let missing = try await server.send(.HEAD, "/unsafe/rs:fit:10:10/plain/not-a-url@jpg")
                #expect(missing.status == 404 && missing.body.isEmpty)
                let health = try await server.send(.HEAD, "/health")
                #expect(health.status == 200 && health.body.isEmpty)
            }
        }
    }

    @Test func debugHeadersGiveTheSourcesBytesAndSizeAndTheResultsSize() async throws {
        try await withOrigin { origin in
            let path = Self.path(origin)
            let bytes = try SourceImages.data(SourceImages.rocket).count
            try await withRunningServer(.fetchingFromLoopback { $0.enableDebugHeaders = true }) { server in
                for cache in ["miss", "memory"] {
                    let reply = try await server.get(path)
                    #expect(reply.header("x-cache") == cache)
                    #expect(reply.header("x-origin-content-length") == String(bytes))
                    #expect(reply.header("x-origin-width") == "640" && reply.header("x-origin-height") == "427")
                    #expect(reply.header("x-result-width") == "300" && reply.header("x-result-height") == "200")
                }
            }
            try await withRunningServer(.fetchingFromLoopback()) { server in
                let reply = try await server.get(path)
                #expect(reply.status == 200 && reply.header("x-origin-width") == nil && reply.header("x-result-width") == nil)
            }
        }
    }

    /// The origin's route that records the `Cookie` header of each request.
    static func cookieRoute(_ origin: TestServer, _ route: String) throws {
        let rocket = try SourceImages.data(SourceImages.rocket)
        origin.route(route) { _ in .content(Array(rocket), type: "image/jpeg") }
    }

    static func cookies(_ origin: TestServer, _ route: String) -> [String?] {
        (origin.statistics.requestLog[route] ?? []).map { $0.header("Cookie") }
    }

    @Test func cookiesGoWithTheSourcesFetchWhenTheirScopeCoversIt() async throws {
        try await withOrigin { origin in
            let read = try await ImageServerConfiguration.load(arguments: ["webimage"], environment: [
                "IMGPROXY_COOKIE_PASSTHROUGH": "true", "IMGPROXY_COOKIE_BASE_URL": "http://127.0.0.1/pictures/index.html",
            ])
            #expect(read.cookiePassthrough && read.cookieBaseURL == "http://127.0.0.1/pictures/index.html")
            for route in ["/pictures/a.jpg", "/other/a.jpg", "/own/a.jpg", "/all/a.jpg", "/off/a.jpg"] { try Self.cookieRoute(origin, route) }
            let cookie = ["Cookie": "session=abc; theme=\"dark mode\"; bad name=x"]

            // Scoped by COOKIE_BASE_URL: its host (any port) and folder.
            try await withRunningServer(.fetchingFromLoopback { ($0.cookiePassthrough, $0.cookieBaseURL) = (true, read.cookieBaseURL) }) { server in
                #expect(try await server.get(Self.path(origin, "/pictures/a.jpg"), headers: cookie).status == 200)
                #expect(try await server.get(Self.path(origin, "/other/a.jpg"), headers: cookie).status == 200)
                // Another client's cookies make another result: never one client's for another.
                let second = try await server.get(Self.path(origin, "/pictures/a.jpg"), headers: ["Cookie": "session=xyz"])
                #expect(second.status == 200 && second.header("x-cache") == "miss")
                let again = try await server.get(Self.path(origin, "/pictures/a.jpg"), headers: ["Cookie": "session=xyz"])
                #expect(again.header("x-cache") == "memory")
            }
            #expect(Self.cookies(origin, "/pictures/a.jpg") == ["session=abc; theme=\"dark mode\"", "session=xyz"])
            #expect(Self.cookies(origin, "/other/a.jpg") == [nil])

            // Scoped by the request's own host: the server's 127.0.0.1, as the origin's.
            try await withRunningServer(.fetchingFromLoopback { $0.cookiePassthrough = true }) { server in
                let reply = try await server.get(Self.path(origin, "/own/a.jpg"), headers: cookie)
                #expect(reply.status == 200)
                // Behind a proxy that names another host, the cookies are that host's.
                let forwarded = cookie.merging(["X-Forwarded-Host": "images.example.com"]) { $1 }
                let other = try await server.get(Self.path(origin, "/own/a.jpg", options: "rs:fit:10:10"), headers: forwarded)
                #expect(other.status == 200)
            }
            #expect(Self.cookies(origin, "/own/a.jpg") == ["session=abc; theme=\"dark mode\"", nil])

            // COOKIE_PASSTHROUGH_ALL: whatever the scope.
            try await withRunningServer(.fetchingFromLoopback {
                ($0.cookiePassthrough, $0.cookiePassthroughAll, $0.cookieBaseURL) = (true, true, "https://elsewhere.example/")
            }) { server in
                let reply = try await server.get(Self.path(origin, "/all/a.jpg"), headers: cookie)
                #expect(reply.status == 200)
            }
            #expect(Self.cookies(origin, "/all/a.jpg") == ["session=abc; theme=\"dark mode\""])

            // Off: no cookie goes.
            try await withRunningServer(.fetchingFromLoopback()) { server in
                let reply = try await server.get(Self.path(origin, "/off/a.jpg"), headers: cookie)
                #expect(reply.status == 200)
            }
            #expect(Self.cookies(origin, "/off/a.jpg") == [nil])
        }
    }

    @Test func cookieScopesFollowGosCookieJar() {
        #expect(SourceCookies.defaultPath("") == "/" && SourceCookies.defaultPath("/a") == "/" && SourceCookies.defaultPath("/a/b/c.jpg") == "/a/b")
        #expect(SourceCookies.pathMatches("/a/b", "/a") && SourceCookies.pathMatches("/a", "/a") && !SourceCookies.pathMatches("/ab", "/a"))
        #expect(SourceCookies.canonicalHost("Images.Example.COM:8080") == "images.example.com")
        #expect(SourceCookies.canonicalHost("[::1]:80") == "::1")
        // By bytes, as Go: a `/` before a combining mark still begins and divides a path
        // (the request-headers fuzz target's input, Tests/Images/fuzz-regressions).
        #expect(SourceCookies.pathMatches("/\u{318}:sm/rt", "/") && SourceCookies.defaultPath("/\u{318}:sm/rt") == "/\u{318}:sm")
        #expect(SourceCookies.pathMatches("/pictures/\u{301}a.jpg", "/pictures"))
        // As Go reads them: no name, a name that is no token or a value with `\` dropped; no `=`:
        // an empty value; a value with a space or a comma quoted, an empty one never.
        let cookies = SourceCookies.cookies(in: ["a=1; b=\"x y\"", "c=1,2; e; f=g\\h; =v; g h=1; q=\"\""])
        #expect(cookies.map { "\($0.name)=\($0.value)" } == ["a=1", "b=\"x y\"", "c=\"1,2\"", "e=", "q="])
    }

    /// Go reads a `Cookie` header by bytes: a `;` or `=` followed by a combining mark (one Swift
    /// Character with it) still splits, and only spaces and tabs are trimmed, not U+00A0.
    @Test func cookiesAreReadByteByByteAsGoReadsThem() {
        let cookies = SourceCookies.cookies(in: ["a=1;\u{301}b=2", "c=\u{301}x", "\u{A0}d=1; \te=2\t"])
        #expect(cookies.map { "\($0.name)=\($0.value)" } == ["a=1", "e=2"])
        // More than Go's 3,000 cookies in a request: none.
        #expect(SourceCookies.cookies(in: [String(repeating: "a=1;", count: 2999) + "a=1"]).count == 3000)
        #expect(SourceCookies.cookies(in: [String(repeating: "a=1;", count: 3000) + "a=1"]).isEmpty)
        // The jar of a scope keeps a name once: its last value, in its first place.
        let kept = SourceCookies.lastOfEachName([("a", "1"), ("b", "2"), ("a", "3")])
        #expect(kept.map { "\($0.name)=\($0.value)" } == ["a=3", "b=2"])
    }
}
