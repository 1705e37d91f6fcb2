import Foundation
import HTTPTypes
import NIOCore
import WebImage

extension ImageServer {
    /// The playground's paths: its page, its signer and its placeholder painter.
    static let playgroundPaths = ["/", "/playground/sign", "/playground/placeholder"]

    /// The playground's page, its links under `base` (the mount point and prefix, with a slash).
    func playgroundPage(base: String) async -> ImageServerResponse {
        let (samples, portraits) = await playgroundSamples()
        return .text(PlaygroundPage.html(base: base, samples: samples, portraits: portraits), status: .ok, type: "text/html; charset=utf-8")
    }

    /// `playground/sign?source=…&options=…&format=…`: the path signed with the server's first key,
    /// as JSON (`{"path": …}`); with `kind=info`, an `/info` path (its options are info options).
    func playgroundSignature(query: Substring) -> ImageServerResponse {
        let parameters = Self.playgroundParameters(query)
        guard let source = parameters["source"], !source.isEmpty else { return .text("source is missing\n", status: .badRequest) }
        let isInfo = parameters["kind"] == "info"
        let format = isInfo ? nil : parameters["format"].flatMap { $0.isEmpty ? nil : $0 }
        let path = ImagePathBuilder.path(options: parameters["options"] ?? "", sourceURL: source, format: format, encoding: .plain)
        do {
            let json = try JSONEncoder().encode(["path": (isInfo ? "/info" : "") + (try playgroundSigned(path))])
            return .text(String(decoding: json, as: UTF8.self), status: .ok, type: "application/json")
        } catch {
            return .text("\(error)\n", status: .internalServerError)
        }
    }

    /// `playground/placeholder?blurhash=…&width=…&height=…` or `?thumbhash=HEX`: the placeholder
    /// the library paints from a hash `/info` gave (`Image(blurHash:size:)`, `Image(thumbHash:)`),
    /// as PNG, so that the page shows ours rather than a script's. At most 256 pixels a side.
    func playgroundPlaceholder(query: Substring) async -> ImageServerResponse {
        let parameters = Self.playgroundParameters(query)
        let side = { (name: String) in min(max(Int(parameters[name] ?? "") ?? 32, 1), 256) }
        let size = CGSize(width: side("width"), height: side("height"))
        let painted: Result<Data, any Error>
        do {
            painted = .success(try await BlockingPool.run {
                let image: Image
                if let blurHash = parameters["blurhash"] {
                    image = try Image(blurHash: blurHash, size: size)
                } else if let hex = parameters["thumbhash"] {
                    image = Image(thumbHash: try ThumbHash(hexString: hex))
                } else {
                    throw ImageServerError.invalidOption("placeholder", reason: "a blurhash, or a thumbhash in hex, is needed")
                }
                return try ImageCodersManager.shared.encode(image, format: .png, options: ImageCoderOptions())
            })
        } catch {
            painted = .failure(error)
        }
        switch painted {
        case .success(let png): return ImageServerResponse(status: .ok, headerFields: [.contentType: "image/png"], body: ByteBuffer(bytes: png))
        case .failure(let error): return .text("\(error)\n", status: .badRequest)
        }
    }

    /// A query's parameters, the first of each name.
    private static func playgroundParameters(_ query: Substring) -> [String: String] {
        var parameters: [String: String] = [:]
        for item in URLComponents(string: "?" + query)?.queryItems ?? [] where parameters[item.name] == nil {
            parameters[item.name] = item.value ?? ""
        }
        return parameters
    }

    /// `path` signed with the first key pair, or under `unsafe` when there is none.
    private func playgroundSigned(_ path: String) throws -> String {
        guard let key = configuration.keys.first, let salt = configuration.salts.first else { return "/unsafe" + path }
        return try URLSigner(key: URLSigningKey(hexKey: key, hexSalt: salt), signatureSize: configuration.signatureSize).signedPath(path)
    }

    /// Up to six images of 20 KB or more under the local root that the server reads (its top
    /// level, then the first of each folder), and up to six of its `faces` folder, one of each
    /// picture (the portraits the gallery cuts, blurs and outlines by their faces), as
    /// `local://` sources: a file whose header does not read (a 12-bit JPEG, say) would show as
    /// a broken image.
    private func playgroundSamples() async -> (samples: [String], portraits: [String]) {
        guard let root = configuration.localFilesystemRoot else { return ([], []) }
        return (try? await BlockingPool.run {
            (Self.samples(under: root), Self.portraits(under: root).map { "local:///faces/" + $0 })
        }) ?? ([], [])
    }

    /// The first of each picture in the `faces` folder under `root`, up to six: names alike up
    /// to their first hyphen are copies of one picture (astronaut-1.jpg to astronaut-8.jpg, one
    /// for each EXIF orientation, and astronaut-large-6.jpg show once, as astronaut-1.jpg).
    private static func portraits(under root: String) -> [String] {
        var pictures: Set<Substring> = []
        var found: [String] = []
        for name in readableImages(in: "faces", under: root) {
            guard pictures.insert(name.prefix { $0 != "-" && $0 != "." }).inserted else { continue }
            found.append(name)
            if found.count == 6 { break }
        }
        return found
    }

    private static func samples(under root: String) -> [String] {
        var found: [String] = []
        for folder in [""] + ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted() where found.count < 6 {
            // Every top-level image, and the first of each folder: a varied gallery.
            let images = readableImages(in: folder, under: root)
            let shown = folder.isEmpty ? Array(images) : images.first.map({ [$0] }) ?? []
            for name in shown {
                found.append("local:///" + (folder.isEmpty ? name : folder + "/" + name))
            }
        }
        return Array(found.prefix(6))
    }

    /// The names of the images in `folder` under `root` (empty: `root` itself) that the server
    /// reads, sorted. Files under 20 KB are icons and test oddities more often than pictures.
    /// Lazy: files are read only as far as the caller looks.
    private static func readableImages(in folder: String, under root: String) -> LazyFilterSequence<[String]> {
        let folderURL = URL(fileURLWithPath: root).appendingPathComponent(folder)
        let extensions: Set<String> = ["jpg", "jpeg", "png", "gif", "webp", "avif", "heic", "svg"]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folderURL.path)) ?? []
        return names.sorted().lazy.filter { name in
            let path = folderURL.appendingPathComponent(name).path
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            guard extensions.contains((name as NSString).pathExtension.lowercased()), size >= 20_000,
                  let data = FileManager.default.contents(atPath: path)
            else { return false }
            return (try? ImageHeader(probing: data)) != nil
        }
    }
}
