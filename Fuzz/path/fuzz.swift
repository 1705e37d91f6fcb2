// The imgproxy path parser (`ImgproxyURLParser.parse(path:now:)`): options, presets, the source
// URL (plain, base64, `%`-escapes, `@` and `.` formats), with signing off, on (the path signed
// as given, and the path as given with a correct signature put in front), and in
// `ONLY_PRESETS` mode, and as an `/info` path (`parseInfo`: its options, `hashsum`, `page`). An
// accepted request must hold what the server relies on, and its source
// written back by `ImagePathBuilder` must read back as the same source.
import Foundation
@testable import WebImageServer
@testable import WebImageServerCore
import FuzzerMain

/// Presets as a configuration gives them: nested, self-referring, a `default` one.
let presets = [
    "default=q:70/sm:0", "thumb=rs:fill:100:100/g:sm", "webp=f:webp/fq:webp:60", "loop=pr:loop/bl:1",
    "nested=pr:thumb/pr:webp/pd:2", "# a comment", "",
]
let key = URLSigningKey(key: Array("fuzz-key".utf8), salt: Array("fuzz-salt".utf8))
let other = URLSigningKey(key: Array("rotated".utf8), salt: [])
let now = Date(timeIntervalSince1970: 2_000_000_000)

/// A parser of `configuration` changed by `change`; nil only if the fixed presets were refused
/// (they are not: the target then checks nothing but says so).
func parser(keys: [URLSigningKey], signatureSize: Int = 32, _ change: (inout ProcessingConfiguration) -> Void) -> ImgproxyURLParser? {
    var configuration = ProcessingConfiguration()
    configuration.presets = presets
    configuration.sourceSchemes.insert("local")
    change(&configuration)
    guard let verifier = try? SignatureVerifier(keys: keys, signatureSize: signatureSize, trustedSignatures: ["trusted"]) else { return nil }
    return try? ImgproxyURLParser(configuration: configuration, verifier: verifier)
}

let open = parser(keys: []) { _ in }
let secure = parser(keys: [other, key]) { $0.allowSecurityOptions = true }
let truncated = parser(keys: [key], signatureSize: 8) { _ in }
let onlyPresets = parser(keys: []) { $0.onlyPresets = true }
let signer = try? URLSigner(key: key)

/// What the server relies on in every accepted request.
func check(_ request: ImageRequest, by parser: ImgproxyURLParser) {
    let options = request.options
    precondition(request.path.hasPrefix("/") && !request.signature.isEmpty)
    precondition(request.canonicalForm == OptionTable.imgproxy.canonicalForm(of: options))
    precondition(options.width >= 0 && options.height >= 0 && options.minWidth >= 0 && options.minHeight >= 0)
    precondition(options.zoomWidth > 0 && options.zoomHeight > 0 && options.dpr > 0 && options.dpr.isFinite)
    precondition([0, 90, 180, 270].contains(options.rotate))
    precondition((0...100).contains(options.quality) && options.formatQuality.values.allSatisfy { (1...100).contains($0) })
    precondition(options.blur >= 0 && options.sharpen >= 0 && options.pixelate >= 0 && options.roundCorners >= 0)
    precondition(options.maxAnimationFrames > 0 && options.maxBytes >= 0)
    precondition((0...1).contains(options.watermark.opacity) && options.watermark.scale >= 0)
    precondition(options.watermark.x.isFinite && options.watermark.y.isFinite && options.watermark.scale.isFinite)
    if let expires = options.expires { precondition(Double(expires) >= now.timeIntervalSince1970) }
    if !parser.configuration.allowSecurityOptions {
        precondition(options.maxSourceResolution == parser.configuration.maxSourceResolution)
        precondition(options.maxResultDimension == parser.configuration.maxResultDimension)
    }
    switch request.source {
    case .remote(let url): precondition(["http", "https"].contains(url.scheme?.lowercased() ?? "") && url.host != nil)
    case .local: precondition(parser.configuration.sourceSchemes.contains("local"))
    case .s3: precondition(parser.configuration.sourceSchemes.contains("s3"))
    }
    // The source, written back both ways, reads back as itself (what `webimage sign` prints).
    guard let open else { return }
    for encoding in ImagePathBuilder.SourceEncoding.allCases {
        let path = ImagePathBuilder.path(options: "", sourceURL: request.source.description, encoding: encoding)
        do {
            let again = try open.parse(path: "/_" + path, now: now)
            precondition(again.source == request.source, "\(request.source) written \(encoding) read back as \(again.source)")
        } catch {
            preconditionFailure("\(request.source) written \(encoding) as \(path): \(error)")
        }
    }
}

/// Parses `path`; any error must be a request error (400, 403 or 404) with a message.
func attempt(_ path: String, _ parser: ImgproxyURLParser?) -> ImageRequest? {
    guard let parser else { return nil }
    do {
        let request = try parser.parse(path: path, now: now)
        check(request, by: parser)
        return request
    } catch {
        precondition([400, 403, 404].contains(error.status), "\(path): \(error) is \(error.status)")
        precondition(!error.publicMessage.isEmpty && !error.description.isEmpty)
        return nil
    }
}

@main enum Target {
    static func main() { runFuzzer(fuzz) }
}

func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    precondition(open != nil && secure != nil && truncated != nil && onlyPresets != nil && signer != nil, "the fuzz parsers were refused")
    let path = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    _ = attempt(path, open)
    _ = attempt(path, onlyPresets)
    _ = attempt(path, secure)
    _ = attempt(path, truncated)
    _ = try? open?.options(parsing: path, now: now)
    // The same bytes as an /info path (after `/info`): its options, `hashsum`, `page`, the source.
    for parser in [open, secure] {
        do {
            _ = try parser?.parseInfo(path: path, now: now)
        } catch {
            precondition([400, 403, 404].contains(error.status), "info \(path): \(error) is \(error.status)")
            precondition(!error.publicMessage.isEmpty)
        }
    }
    // The same path with a correct signature in front of what follows its first segment.
    var target = Substring(path).unicodeScalars
    if let query = target.firstIndex(of: "?") { target = target[..<query] }
    if target.first == "/" { target = target.dropFirst() }
    if let slash = target.firstIndex(of: "/"), let signer {
        let rest = String(Substring(target[target.index(after: slash)...]))
        let signed = "/" + signer.signature(for: "/" + PathRepair.repaired(rest)) + "/" + rest
        if attempt(signed, secure) == nil, let open, (try? open.parse(path: "/_/" + rest, now: now)) != nil {
            // What the open parser accepts, the secure one accepts signed, security options aside.
            do {
                _ = try secure?.parse(path: signed, now: now)
            } catch {
                preconditionFailure("signed \(signed): \(error)")
            }
        }
    }
    return 0
}
