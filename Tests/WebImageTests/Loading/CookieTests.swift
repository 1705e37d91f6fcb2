import Foundation
import ImageEngine
import Testing
import WebImage
import WebImageTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
import WebImageTestSupport
#endif

/// `.handleCookies`: the downloader's cookie storage is read and written on every hop, as
/// `URLSession` does under `httpShouldHandleCookies`; without the option it is left alone.
@Suite("Loading: cookies", .offThePool) struct CookieTests {
    /// A storage of its own for one test, passed to `body`. Foundation on Linux writes every
    /// named storage to `.cookies.<name>` in a folder under the application support folder (an
    /// empty list here: the tests' cookies are session cookies); that file is removed after.
    static func withFreshStorage(_ body: (HTTPCookieStorage) async throws -> Void) async throws {
        let name = "swift-webimage-tests-\(UUID().uuidString)"
        defer {
            let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            let folders = support.flatMap { try? FileManager.default.contentsOfDirectory(at: $0, includingPropertiesForKeys: nil) } ?? []
            for folder in folders { try? FileManager.default.removeItem(at: folder.appendingPathComponent(".cookies." + name)) }
        }
        try await body(HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: name))
    }

    static let rocket = "/images/photos/rocket.jpg"

    /// A route that answers with rocket.jpg and sets `cookie`.
    static func routeSettingCookie(_ server: TestServer, _ path: String, _ cookie: String) throws {
        let bytes = Array(try TestImages.data("photos/rocket.jpg"))
        server.route(path) { _ in
            TestResponse(headers: [("Content-Type", "image/jpeg"), ("Set-Cookie", cookie)], body: bytes)
        }
    }

    @Test func aCookieSetByOneImageIsSentWithTheNext() async throws {
        try await Self.withFreshStorage { storage in try await withOrigin { server in
            let downloader = makeDownloader { $0.cookieStorage = storage }
            try Self.routeSettingCookie(server, "/login.jpg", "session=abc123; Path=/")
            _ = try await downloader.downloadData(with: server.url("/login.jpg"), options: .handleCookies)
            #expect(storage.cookies(for: server.url("/"))?.map(\.name) == ["session"])
            let result = try await downloader.downloadImage(with: server.url(Self.rocket), options: .handleCookies)
            #expect(result.image.pixelWidth == 640)
            #expect(server.statistics.requestLog[Self.rocket]?.first?.header("Cookie") == "session=abc123")
        } }
    }

    /// Foundation's storage reads and writes its file synchronously: with `.handleCookies`, on
    /// the blocking pool (the blocking check sees the cookie calls; none on a task's thread).
    @Test func cookiesAreReadAndKeptOffTheCooperativePool() async throws {
        try await Self.withFreshStorage { storage in try await withOrigin { server in
            let downloader = makeDownloader { $0.cookieStorage = storage }
            try Self.routeSettingCookie(server, "/login.jpg", "session=abc123; Path=/")
            let reports = Locked<[BlockingCheck.Report]>([])
            try await BlockingCheck.observing({ report in reports.withLock { $0.append(report) } }) {
                _ = try await downloader.downloadData(with: server.url("/login.jpg"), options: .handleCookies)
                _ = try await downloader.downloadData(with: server.url(Self.rocket), options: .handleCookies)
            }
            #expect(server.statistics.requestLog[Self.rocket]?.first?.header("Cookie") == "session=abc123")
            let mine = reports.withLock { $0 }.filter { $0.detail.hasPrefix(server.url("/").absoluteString) }
            #expect(mine.isEmpty, "\(mine)")
        } }
    }

    @Test func withoutTheOptionCookiesAreNeitherSentNorKept() async throws {
        try await Self.withFreshStorage { storage in try await withOrigin { server in
            let downloader = makeDownloader { $0.cookieStorage = storage }
            try Self.routeSettingCookie(server, "/login.jpg", "session=abc123; Path=/")
            _ = try await downloader.downloadData(with: server.url("/login.jpg"))
            #expect(storage.cookies(for: server.url("/"))?.isEmpty != false, "not kept")
            try Self.routeSettingCookie(server, "/kept.jpg", "kept=1; Path=/")
            _ = try await downloader.downloadData(with: server.url("/kept.jpg"), options: .handleCookies)
            _ = try await downloader.downloadData(with: server.url(Self.rocket))
            #expect(server.statistics.requestLog[Self.rocket]?.first?.header("Cookie") == nil, "not sent")
        } }
    }

    /// A cookie set by a redirect's response goes with the request to its target, after the
    /// caller's own `Cookie` header.
    @Test func aCookieSetOnARedirectGoesToItsTarget() async throws {
        try await Self.withFreshStorage { storage in try await withOrigin { server in
            let downloader = makeDownloader { $0.cookieStorage = storage }
            downloader.setValue("own=1", forHTTPHeaderField: "Cookie")
            server.route("/gate") { _ in
                TestResponse(status: 302, headers: [("Location", Self.rocket), ("Set-Cookie", "passed=yes; Path=/images")])
            }
            let result = try await downloader.downloadData(with: server.url("/gate"), options: .handleCookies)
            let rocket = try TestImages.data("photos/rocket.jpg")
            #expect(result.response?.statusCode == 200 && result.data == rocket)
            #expect(server.statistics.requestLog["/gate"]?.first?.header("Cookie") == "own=1")
            #expect(server.statistics.requestLog[Self.rocket]?.first?.header("Cookie") == "own=1; passed=yes")
        } }
    }

    /// What an origin sends is not trusted: malformed `Set-Cookie` fields are dropped, a cookie
    /// for another domain is not kept, and the image still arrives.
    @Test func malformedAndForeignCookiesAreDropped() async throws {
        try await Self.withFreshStorage { storage in try await withOrigin { server in
            let downloader = makeDownloader { $0.cookieStorage = storage }
            let bytes = Array(try TestImages.data("photos/rocket.jpg"))
            server.route("/hostile.jpg") { _ in
                TestResponse(headers: [
                    ("Content-Type", "image/jpeg"), ("Set-Cookie", "=;;"), ("Set-Cookie", "no-equals-sign"),
                    ("Set-Cookie", "stolen=1; Domain=evil.example; Path=/"), ("Set-Cookie", String(repeating: "x", count: 8192)),
                    ("Set-Cookie", "good=1; Path=/"),
                ], body: bytes)
            }
            let result = try await downloader.downloadImage(with: server.url("/hostile.jpg"), options: .handleCookies)
            #expect(result.image.pixelWidth == 640)
            #expect(storage.cookies?.map(\.name) == ["good"], "\(storage.cookies ?? [])")
            _ = try await downloader.downloadData(with: server.url(Self.rocket), options: .handleCookies)
            #expect(server.statistics.requestLog[Self.rocket]?.first?.header("Cookie") == "good=1")
        } }
    }
}
