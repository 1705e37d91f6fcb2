// The canonical form as a property: for any request a parser accepts, its `canonicalForm` read
// back as the options part of a path (`options(parsing:)`, by a parser of the same
// configuration without presets, security options allowed: the form has the presets expanded,
// is written against the configuration's defaults alone, and holds `max_animation_frames`, the
// frames an animation keeps) must parse, give the same processing and the same form
// again. "The same processing": `ProcessingOptions` equal once what the form leaves out by
// design is set aside: the handling options (`expires`, `filename`, `return_attachment`, the
// source limits), and values that do nothing (`pixelate:1`, the extend
// gravity without `extend`, a watermark's position, offsets and scale at opacity 0, qualities of formats the server cannot write, the configured
// format qualities under a URL's `quality`).
import Foundation
import WebImage
@testable import WebImageServer
@testable import WebImageServerCore
import FuzzerMain

let presets = ["thumb=rs:fill:100:100/g:sm/pix:1", "webp=f:webp/fq:webp:60:png:0", "loop=pr:loop/ex:0:no", "big=mb:5000/pix:4"]
let now = Date(timeIntervalSince1970: 2_000_000_000)

/// A parser of the default configuration, or of one with other defaults, with the presets,
/// security options allowed or not, and the same configuration without presets to read back.
func parsers(_ change: (inout ProcessingConfiguration) -> Void) -> (ImgproxyURLParser, ImgproxyURLParser)? {
    var configuration = ProcessingConfiguration()
    change(&configuration)
    configuration.sourceSchemes.insert("local")
    var withPresets = configuration
    withPresets.presets = presets
    configuration.allowSecurityOptions = true
    guard let reading = try? ImgproxyURLParser(configuration: withPresets), let back = try? ImgproxyURLParser(configuration: configuration) else {
        return nil
    }
    return (reading, back)
}

let configurations = [
    parsers { _ in },
    parsers { $0.allowSecurityOptions = true },
    parsers {
        $0.allowSecurityOptions = true
        $0.quality = 65
        $0.formatQuality = [.jpeg: 90, .png: 10]
        $0.stripMetadata = false
        $0.autoRotate = false
        $0.maxAnimationFrames = 50
    },
    // Stills only, security options off: `max_animation_frames:1` is in every form, and reads back.
    parsers { $0.maxAnimationFrames = 1 },
]

/// `options` with what the canonical form leaves out by design set to `reference`'s.
func processing(_ options: ProcessingOptions, as reference: ProcessingOptions) -> ProcessingOptions {
    var options = options
    options.expires = reference.expires
    options.filename = reference.filename
    options.returnAttachment = reference.returnAttachment
    options.maxSourceResolution = reference.maxSourceResolution
    options.maxSourceFileSize = reference.maxSourceFileSize
    options.maxAnimationFrameResolution = reference.maxAnimationFrameResolution
    options.maxResultDimension = reference.maxResultDimension
    if options.pixelate == 1 { options.pixelate = 0 }
    if !options.extend { options.extendGravity = .center }
    if options.watermark.opacity == 0 { options.watermark = ProcessingOptions.Watermark() }
    // Qualities as the encoder sees them: by format, for the formats it writes.
    options.formatQuality = Dictionary(uniqueKeysWithValues: VipsImageCoder.encodableFormats.map { ($0, options.quality(for: $0)) })
    options.quality = 0
    return options
}

@main enum Target {
    static func main() { runFuzzer(fuzz) }
}

func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let path = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    for configuration in configurations {
        guard let (parser, back) = configuration else { preconditionFailure("the fuzz configurations were refused") }
        // The input as a whole path, and as the options part of one.
        let requests = [
            try? parser.parse(path: path, now: now),
            (try? parser.options(parsing: path, now: now)).map {
                ImageRequest(signature: "_", path: path, options: $0, source: .local(path: "/a.jpg"), canonicalForm: OptionTable.imgproxy.canonicalForm(of: $0))
            },
        ]
        for case let request? in requests {
            let form = request.canonicalForm
            let again: ProcessingOptions
            do {
                again = try back.options(parsing: form, now: now)
            } catch {
                preconditionFailure("\(path): its canonical form \(form) does not parse: \(error)")
            }
            precondition(again.canonicalForm == form, "\(path): \(form) read back as \(again.canonicalForm)")
            precondition(
                processing(again, as: request.options) == processing(request.options, as: request.options),
                "\(path): \(form) read back as other processing: \(again) for \(request.options)"
            )
        }
    }
    return 0
}
