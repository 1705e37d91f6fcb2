import Foundation
import Hummingbird
import Testing
import WebImageTestServer
@testable import WebImageServer
import WebImageTestSupport

/// `webimage serve` answers an image `GET` past the router (`ImageServerResponder`): every path
/// answers as the router alone answers it, prefix, health paths, playground and CORS included.
@Suite(.offThePool) struct ImageServerResponderTests {
    static func configuration(origin: String) -> ImageServerConfiguration {
        .fetchingFromLoopback {
            $0.pathPrefix = "/img"
            $0.healthCheckPath = "/ready/deep"
            $0.allowOrigin = "https://example.com"
            $0.playground = true
            $0.cacheDirectory += "-" + origin
        }
    }

    @Test func theImageLaneTakesOnlyWhatTheRouterGivesTheImageRoute() throws {
        let server = try ImageServer(configuration: Self.configuration(origin: "lane"))
        let router = Router(context: ImageServerContext.self)
        server.addRoutes(to: router)
        let responder = ImageServerResponder(router: router, server: server, traces: false)
        // Whatever a client sends after the prefix goes to the image parser, which refuses it; the
        // router matches components as sent (case and dot segments included), and so does the lane.
        for path in ["/img/unsafe/rs:fit:10:10/plain/x.jpg", "/img//unsafe/plain/x.jpg", "/img/sig/readyish/x", "/img/healthy/x",
                     "/img/%2e%2e/health", "/img/Health/../x", "/img/h\u{E9}alth", "/img/\u{0}", "/img/" + String(repeating: "a/", count: 10_000)] {
            #expect(responder.takesImage(path), "\(path)")
        }
        for path in ["/img", "/img/", "/img//", "/img/health", "/img/ready/deep", "/img/ready/x", "/img//health", "/img/playground/sign",
                     "/imgx/unsafe/plain/x.jpg", "/unsafe/plain/x.jpg", "/", "", "/im", "img/unsafe/x", "/IMG/unsafe/x"] {
            #expect(!responder.takesImage(path), "\(path)")
        }
    }

    @Test func everyPathAnswersAsTheRouterAloneAnswersIt() async throws {
        try await withOrigin { origin in
            let source = origin.url("/images/photos/rocket.jpg").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let paths = [
                "/img/unsafe/rs:fit:100:100/plain/\(source)@png", "/img//unsafe/rs:fit:100:100/plain/\(source)", "/img/unsafe/rs:fit:100:100/plain/nothing",
                "/img/unsafe/bogus:1/plain/\(source)", "/img/badsignature/plain/\(source)", "/img/health", "/img/ready/deep", "/img/ready/other", "/img/",
                "/img", "/img/playground/sign?source=\(source)", "/imgx/unsafe/plain/\(source)", "/unsafe/plain/\(source)",
                "/img/Health", "/img/%2e%2e/health", "/img/health/", "/img//health",
            ]
            func replies(_ server: ServerUnderTest) async throws -> [String] {
                var replies: [String] = []
                for path in paths {
                    let reply = try await server.get(path)
                    let fields = ["content-type", "content-length", "cache-control", "etag", "access-control-allow-origin", "x-cache"]
                    replies.append("\(path) \(reply.status) \(fields.map { reply.header($0) ?? "-" }) \(reply.body.count)")
                }
                return replies
            }
            let laned = try await withRunningServer(Self.configuration(origin: "laned")) { try await replies($0) }
            let configuration = Self.configuration(origin: "routed")
            let server = try ImageServer(configuration: configuration)
            let routed = try await withRunningApplication(cacheFolder: configuration.cacheDirectory) { logger, onListening in
                let router = Router(context: ImageServerContext.self)
                server.addRoutes(to: router)
                return Application(
                    router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                    onServerRunning: { await onListening($0.localAddress?.port ?? 0) }, logger: logger
                )
            } body: { try await replies($0) }
            #expect(laned == routed)
            // The lane was taken and answered an image; the others answered as routes do.
            #expect(laned.first?.contains(" 200 [\"image/png\"") == true, "\(laned)")
            #expect(laned.contains { $0.hasPrefix("/img/ready/deep 200") } && laned.contains { $0.hasPrefix("/imgx/unsafe/plain/\(source) 404") })
        }
    }
}
