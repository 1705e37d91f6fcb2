import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import WebImage

/// The HTTP stack's own limit for the image server's cached hit: a bare Hummingbird route, on
/// Hummingbird's defaults as `webimage serve` runs them, answering every GET with one file's bytes
/// from memory and the headers a result carries, with nothing else done a request.
enum BareRoute {
    static func serve(file: String, port: Int) async throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let body = ByteBuffer(bytes: bytes)
        var headers = HTTPFields()
        headers[.contentType] = ImageFormat(sniffing: bytes).mimeType
        headers[.contentLength] = String(body.readableBytes)
        headers[.cacheControl] = "public, max-age=31536000"
        headers[.eTag] = "\"bare-route\""
        let router = Router()
        let fields = headers
        router.get("**") { _, _ in Response(status: .ok, headers: fields, body: ResponseBody(byteBuffer: body)) }
        let application = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: "webimage")
        )
        try await application.runService()
    }
}
