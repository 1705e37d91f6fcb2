import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import WebImage

extension ImageServer {
    /// The playground's paths: its page and its signer.
    static let playgroundPaths = ["/", "/playground/sign"]

    /// Adds the playground, when the configuration serves it: the page at the routes' root and
    /// `playground/sign`, which signs a path with the server's first key. Anyone who reaches it
    /// can have any source signed, so it is on by default only on a loopback address.
    func addPlaygroundRoutes<Routes: RouterMethods>(to routes: Routes) {
        guard configuration.servesPlayground else { return }
        routes.get(RouterPath(Self.playgroundPaths[0])) { _, context in
            // The page's own address: the router's root or the group's prefix.
            let prefix = context.endpointPath.map { $0 == "/" ? "" : $0 } ?? ""
            let samples = await self.playgroundSamples()
            return Self.text(PlaygroundPage.html(base: prefix + "/", samples: samples), type: "text/html; charset=utf-8")
        }
        routes.get(RouterPath(Self.playgroundPaths[1])) { request, _ in
            let query = request.uri.queryParameters
            guard let source = query.get("source"), !source.isEmpty else {
                return Self.text("source is missing\n", type: "text/plain; charset=utf-8", status: .badRequest)
            }
            let format = query.get("format").flatMap { $0.isEmpty ? nil : $0 }
            let path = ImagePathBuilder.path(options: query.get("options") ?? "", sourceURL: source, format: format, encoding: .plain)
            do {
                let signed = try self.playgroundSigned(path)
                let json = try JSONEncoder().encode(["path": signed])
                return Self.text(String(decoding: json, as: UTF8.self), type: "application/json")
            } catch {
                return Self.text("\(error)\n", type: "text/plain; charset=utf-8", status: .internalServerError)
            }
        }
    }

    /// `path` signed with the first key pair, or under `unsafe` when there is none.
    private func playgroundSigned(_ path: String) throws -> String {
        guard let key = configuration.keys.first, let salt = configuration.salts.first else { return "/unsafe" + path }
        return try URLSigner(key: URLSigningKey(hexKey: key, hexSalt: salt), signatureSize: configuration.signatureSize).signedPath(path)
    }

    /// Up to six images of 20 KB or more under the local root that the server reads (its top
    /// level, then the first of each folder), as `local://` sources: a file whose header does
    /// not read (a 12-bit JPEG, say) would show as a broken image.
    private func playgroundSamples() async -> [String] {
        guard let root = configuration.localFilesystemRoot else { return [] }
        return (try? await BlockingPool.run { Self.samples(under: root) }) ?? []
    }

    private static func samples(under root: String) -> [String] {
        let rootURL = URL(fileURLWithPath: root)
        let extensions: Set<String> = ["jpg", "jpeg", "png", "gif", "webp", "avif", "heic", "svg"]
        var found: [String] = []
        for folder in [""] + ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted() where found.count < 6 {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: rootURL.appendingPathComponent(folder).path)) ?? []
            // Every top-level image, and the first of each folder: a varied gallery.
            // Files under 20 KB are icons and test oddities more often than pictures.
            // Lazy: a folder's files are read only until its first readable image.
            let images = names.sorted().lazy.filter { name in
                let path = rootURL.appendingPathComponent(folder).appendingPathComponent(name).path
                let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
                guard extensions.contains((name as NSString).pathExtension.lowercased()), size >= 20_000,
                      let data = FileManager.default.contents(atPath: path)
                else { return false }
                return (try? ImageHeader(probing: data)) != nil
            }
            let shown = folder.isEmpty ? Array(images) : images.first.map({ [$0] }) ?? []
            for name in shown {
                found.append("local:///" + (folder.isEmpty ? name : folder + "/" + name))
            }
        }
        return Array(found.prefix(6))
    }

    private static func text(_ body: String, type: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers: HTTPFields = [.contentType: type, .cacheControl: "no-store"]
        headers[.contentLength] = String(body.utf8.count)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
