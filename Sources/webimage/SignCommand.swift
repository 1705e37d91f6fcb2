import ArgumentParser
import Foundation
import WebImageServer

struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Print the signed imgproxy path of a source processed by options.",
        discussion: """
            Without --key and --salt, the first pair of WEBIMAGE_KEY and WEBIMAGE_SALT (hex, \
            comma-separated) signs; with neither, the path is printed unsigned under "insecure". \
            The signature size comes from --signature-size, else WEBIMAGE_SIGNATURE_SIZE, else 32.
            Example: webimage sign --key 736563726574 --salt 68656c6c6f rs:fill:300:400:0/g:sm \
            http://example.com/images/curiosity.jpg --format png
            """
    )

    @Option(help: "The key in hex (default: WEBIMAGE_KEY).")
    var key: String?

    @Option(help: "The salt in hex (default: WEBIMAGE_SALT).")
    var salt: String?

    @Option(help: "Bytes of the signature kept, 1 to 32 (default: WEBIMAGE_SIGNATURE_SIZE, else 32).")
    var signatureSize: Int?

    @Argument(help: "Processing options, slash-separated, such as rs:fill:300:200/g:sm ('' for none).")
    var options: String

    @Argument(help: "The source URL, such as https://example.com/a.jpg or local:///a.jpg.")
    var sourceURL: String

    @Option(help: "The output format, written after the source (webp, avif, png, ...).")
    var format: String?

    /// How the source URL is written (`ImagePathBuilder.SourceEncoding`).
    enum Encoding: String, EnumerableFlag {
        case base64, plain
    }

    @Flag(help: "Write the source URL as URL-safe base64 (the default) or plain, percent-escaped.")
    var encoding: Encoding = .base64

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let path = ImagePathBuilder.path(
            options: options, sourceURL: sourceURL, format: format, encoding: encoding == .plain ? .plain : .base64
        )
        let keys = key ?? environment["WEBIMAGE_KEY"] ?? ""
        let salts = salt ?? environment["WEBIMAGE_SALT"] ?? ""
        let size: Int
        if let signatureSize {
            size = signatureSize
        } else if let text = environment["WEBIMAGE_SIGNATURE_SIZE"] {
            guard let value = Int(text) else { throw ValidationError("WEBIMAGE_SIGNATURE_SIZE is not a number: \(text)") }
            size = value
        } else {
            size = 32
        }
        do {
            guard let pair = try URLSigningKey.pairs(hexKeys: keys, hexSalts: salts).first else {
                print("/insecure" + path)
                return
            }
            print(try URLSigner(key: pair, signatureSize: size).signedPath(path))
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
