import ArgumentParser
import Foundation
import WebImageServer

struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Print the signed imgproxy path of a source processed by options.",
        discussion: """
            Without --key and --salt, the first pair of the server's keys and salts signs \
            (\(ImageServerConfiguration.variables(of: \.keys)), \(ImageServerConfiguration.variables(of: \.salts)): hex, comma-separated); with \
            neither, the path is printed unsigned under "unsafe". The signature size comes from \
            --signature-size, else \(ImageServerConfiguration.variables(of: \.signatureSize)), else 32.
            Example: webimage sign --key 736563726574 --salt 68656c6c6f rs:fill:300:400:0/g:sm \
            http://example.com/images/curiosity.jpg --format png
            """
    )

    @Option(help: "The key in hex (default: \(ImageServerConfiguration.variables(of: \.keys))).")
    var key: String?

    @Option(help: "The salt in hex (default: \(ImageServerConfiguration.variables(of: \.salts))).")
    var salt: String?

    @Option(help: "Bytes of the signature kept, 1 to 32 (default: \(ImageServerConfiguration.variables(of: \.signatureSize)), else 32).")
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
        let path = ImagePathBuilder.path(
            options: options, sourceURL: sourceURL, format: format, encoding: encoding == .plain ? .plain : .base64
        )
        do {
            // The server's own settings, read as `webimage serve` reads them, under the flags.
            let settings = try ImageServerConfiguration.reading([\.keys, \.salts, \.signatureSize])
            let keys = key ?? settings.keys.joined(separator: ",")
            let salts = salt ?? settings.salts.joined(separator: ",")
            guard let pair = try URLSigningKey.pairs(hexKeys: keys, hexSalts: salts).first else {
                // imgproxy's word for a path whose signature is not checked.
                print("/unsafe" + path)
                return
            }
            print(try URLSigner(key: pair, signatureSize: signatureSize ?? settings.signatureSize).signedPath(path))
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
