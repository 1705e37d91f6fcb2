import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Testing
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// One core answers every request (`ImageServer.respond(to:)`): `webimage serve` hands it every
/// request (`ImageServerResponder`), a Hummingbird router the paths under the mount point
/// (`addRoutes(to:)`); every path answers alike both ways, prefix, health paths, playground and
/// CORS included.
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

    /// The core answers a swift-http-types request with no framework around it: an image URL's
    /// answer (and only one) carries the request's ID, whatever its status; the health check, the
    /// playground and the paths no route takes do not.
    @Test func theCoreTakesAsImagesOnlyThePathsNoOtherRouteBeginsWith() async throws {
        let server = try ImageServer(configuration: Self.configuration(origin: "core"))
        func answer(_ path: String, mount: String = "") async -> ImageServerResponse {
            await server.respond(to: ImageServerRequest(
                head: HTTPRequest(method: .get, scheme: "http", authority: "localhost", path: path), mountPath: mount,
                logger: Logger(label: "test"), id: "host-id"
            ))
        }
        // Whatever a client sends after the prefix goes to the image parser, which refuses it; the
        // components are matched as sent (case and dot segments included), empty ones skipped.
        for path in ["/img/unsafe/rs:fit:10:10/plain/x.jpg", "/img//unsafe/plain/x.jpg", "/img/sig/readyish/x", "/img/healthy/x",
                     "/img/%2e%2e/health", "/img/Health/../x", "/img/h\u{E9}alth", "/img/" + String(repeating: "a/", count: 10_000)] {
            let response = await answer(path)
            #expect(response.head.headerFields[.requestID] == "host-id" && response.head.status.code >= 400, "\(path)")
        }
        for (path, status) in [("/img", 200), ("/img/", 200), ("/img//", 200), ("/img/health", 200), ("/img/ready/deep", 200), ("/img/ready/x", 404),
                               ("/img//health", 200), ("/img/playground/sign", 400), ("/imgx/unsafe/plain/x.jpg", 404), ("/unsafe/plain/x.jpg", 404),
                               ("/", 404), ("/im", 404), ("img/unsafe/x", 404), ("/IMG/unsafe/x", 404)] {
            let response = await answer(path)
            #expect(response.head.headerFields[.requestID] == nil && response.head.status.code == status, "\(path): \(response.head.status)")
        }
        // Mounted under a host's path, the same paths below it.
        #expect(await answer("/hosted/img/health", mount: "/hosted").head.status == .ok)
        #expect(await answer("/hosted/img/unsafe/plain/x.jpg", mount: "/hosted").head.headerFields[.requestID] == "host-id")
        #expect(await answer("/hostedimg/health", mount: "/hosted").head.status == .notFound)
        #expect(await answer("/img/health", mount: "/hosted").head.status == .notFound)
    }

    @Test func aRoutersMountPointIsTheComponentsItsRouteBeginsWith() {
        #expect(ImageServerRequest.mountPath(of: "/img/unsafe/plain/x", routeComponents: 1) == "/img")
        #expect(ImageServerRequest.mountPath(of: "//a//b/img/x", routeComponents: 3) == "//a//b/img")
        #expect(ImageServerRequest.mountPath(of: "/img", routeComponents: 1) == "/img")
        #expect(ImageServerRequest.mountPath(of: "/img/", routeComponents: 1) == "/img")
        #expect(ImageServerRequest.mountPath(of: "/anything", routeComponents: 0) == "")
        #expect(ImageServer.mountComponents(of: "/t/:tenant/img/**") == 3 && ImageServer.mountComponents(of: "/") == 0)
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
