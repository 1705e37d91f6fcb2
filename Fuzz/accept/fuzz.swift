// `Accept` negotiation: `AcceptHeader.mediaTypes(in:)` and `OutputFormatPlan`, for every
// combination of the AUTO and ENFORCE settings, a URL format or none, `raw`, and sources of
// several kinds (still, alpha, animated). The plan's `cacheKey` is part of the result key, so
// two headers that give the same key must give the same format for every source; a plan that
// does not vary with `Accept` must give what no header gives.
import Foundation
import WebImage
@testable import WebImageServer
@testable import WebImageServerCore
import FuzzerMain

/// The headers of a few test images (a JPEG, a PNG with alpha, an animated GIF, an animated WebP, an SVG).
let sources: [ImageHeader] = {
    let images = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Images/sdwebimage")
    let names = ["TestImage.jpg", "TestImage.png", "TestImage.gif", "TestImageAnimated.webp", "TestImage.svg"]
    return names.compactMap { name in (try? Data(contentsOf: images.appendingPathComponent(name))).flatMap { try? ImageHeader(probing: $0) } }
}()

let configurations: [ProcessingConfiguration] = [false, true].flatMap { auto in
    [false, true].flatMap { enforce in
        [[ImageFormat](), [.png, .webP]].map { preferred in
            var configuration = ProcessingConfiguration()
            (configuration.autoAVIF, configuration.autoWebP) = (auto, !auto)
            (configuration.enforceAVIF, configuration.enforceWebP) = (enforce, enforce)
            configuration.preferredFormats = preferred
            return configuration
        }
    }
}

let requests: [ProcessingOptions] = {
    var still = ProcessingOptions()
    still.maxAnimationFrames = 1
    var padded = ProcessingOptions()
    padded.padding.top = 4
    var flattened = padded
    flattened.background = RGBA8(red: 1, green: 2, blue: 3)
    var png = ProcessingOptions()
    png.format = .png
    var raw = png
    raw.raw = true
    return [ProcessingOptions(), still, padded, flattened, png, raw]
}()

/// Headers that name what the four cache keys can differ by.
let plainHeaders: [String?] = [nil, "image/avif", "image/webp", "image/avif,image/webp"]

/// For each configuration and request, the cache keys of the plain headers and the formats
/// they give each source: the same for every input, so made once.
let plainOutcomes: [[[String: [String]]]] = configurations.map { configuration in
    requests.map { options in
        var outcomes: [String: [String]] = [:]
        for header in plainHeaders {
            let plan = OutputFormatPlan(options: options, accept: header, configuration: configuration)
            outcomes[plan.cacheKey] = sources.map { outcome(plan, $0) }
        }
        return outcomes
    }
}

/// The format a plan gives `source`, or the error's status.
func outcome(_ plan: OutputFormatPlan, _ source: ImageHeader) -> String {
    do {
        return try plan.format(for: source).description
    } catch {
        precondition(error.status == 422, "\(error)")
        return "422"
    }
}

@main enum Target {
    static func main() { runFuzzer(fuzz) }
}

func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    precondition(sources.count == 5, "the test images were not found")
    let header = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    // The header as given for the first configuration; for the others, a header of what it takes
    // that counts (reading a long header once per plan, under ASan, ran about 8 inputs a second).
    let types = AcceptHeader.mediaTypes(in: header)
    let taken = ["image/avif", "image/webp"].filter(types.contains).joined(separator: ",")
    for type in types {
        precondition(!type.isEmpty && !type.contains("*") && !type.contains(",") && !type.contains(";") && type == type.lowercased())
    }
    for (configurationIndex, configuration) in configurations.enumerated() {
        for (optionsIndex, options) in requests.enumerated() {
            let plan = OutputFormatPlan(options: options, accept: configurationIndex == 0 ? header : taken, configuration: configuration)
            let key = plan.cacheKey
            precondition(key.hasPrefix(options.format.map(ProcessingOptions.name) ?? "auto"))
            // `raw` sends the source as it came: the plan's format is not used.
            if options.raw { continue }
            let formats = sources.map { outcome(plan, $0) }
            // The header with only what the key can tell: same key, same formats.
            let plain = plainOutcomes[configurationIndex][optionsIndex]
            guard let same = plain[key] else { preconditionFailure("\(header): cache key \(key) is none of the plain headers'") }
            precondition(same == formats, "\(header): \(key) gives \(formats)")
            if !plan.variesWithAccept {
                let none = OutputFormatPlan(options: options, accept: nil, configuration: configuration).cacheKey
                precondition(plain[none] == formats, "\(header): does not vary, yet gives \(formats)")
            }
        }
    }
    return 0
}
