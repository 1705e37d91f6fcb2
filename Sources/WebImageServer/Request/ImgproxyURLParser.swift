import Foundation
import WebImage

/// Reads imgproxy's URL format, `/{signature}/{options}/{source}`: made once from the
/// configuration (its presets are checked then), used for every request.
public struct ImgproxyURLParser: Sendable {
    /// The settings requests are read by.
    public let configuration: ProcessingConfiguration
    /// The signature check.
    public let verifier: SignatureVerifier
    private let applier: OptionApplier

    /// A parser for `configuration`, checking signatures with `verifier` (none: signing off).
    /// Throws when a preset does not parse or holds an invalid option.
    public init(configuration: ProcessingConfiguration = ProcessingConfiguration(), verifier: SignatureVerifier? = nil) throws(ImageServerConfigurationError) {
        let presets = try Presets(parsing: configuration.presets)
        self.configuration = configuration
        if let verifier {
            self.verifier = verifier
        } else {
            self.verifier = try SignatureVerifier(keys: [])
        }
        self.applier = OptionApplier(presets: presets, allowSecurityOptions: configuration.allowSecurityOptions)
        for (name, options) in presets.options {
            var scratch = ProcessingOptions(configuration: configuration)
            for option in options {
                do {
                    try applier.apply(option, to: &scratch, now: .distantPast, presetChain: [name])
                } catch {
                    throw .invalidPreset(name, reason: error.publicMessage)
                }
            }
        }
    }

    /// The request a URL path asks for. `path` is the request target as received, after any
    /// prefix the routes are mounted under: not percent-decoded, its query (ignored) allowed:
    /// `/{signature}/rs:fill:300:200/plain/https://example.com/a.jpg@webp`. Errors carry the
    /// status to answer: 403 for the signature or an expired URL, 400 for options, 404 for
    /// the path or the source.
    public func parse(path: String, now: Date = Date()) throws(ImageServerError) -> ImgproxyRequest {
        var target = Substring(path)
        if let query = target.firstIndex(of: "?") { target = target[..<query] }
        if target.hasPrefix("/") { target = target.dropFirst() }
        guard let slash = target.firstIndex(of: "/") else { throw .invalidPath("no options or source after the signature") }
        let signature = String(target[..<slash])
        let rest = PathRepair.repaired(String(target[target.index(after: slash)...]))
        guard !signature.isEmpty, !rest.isEmpty else { throw .invalidPath("an empty signature or path") }
        let signedPath = "/" + rest
        try verifier.verify(signature: signature, path: signedPath)

        let segments = rest.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        var options = try defaultOptions(now: now)
        let sourceSegments: [String]
        if configuration.onlyPresets {
            let names = segments[0].split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            try applier.apply(RawOption(name: "preset", arguments: names), to: &options, now: now)
            sourceSegments = Array(segments.dropFirst())
        } else {
            let (parsed, rest) = RawOption.leading(segments)
            for option in parsed { try applier.apply(option, to: &options, now: now) }
            sourceSegments = rest
        }
        let source = try SourceDecoding.decode(sourceSegments, schemes: configuration.sourceSchemes)
        if let written = source.fileExtension, !options.raw {
            guard let format = FormatNames.format(named: written) else {
                throw .invalidOption("extension \(written)", reason: "\(written) is not an image format")
            }
            options.format = format
        }
        return ImgproxyRequest(signature: signature, path: signedPath, options: options, source: source)
    }

    /// The options a run of option segments asks for (`rs:fill:300:200/g:sm`), with the
    /// configuration's defaults and `default` preset applied: the options part of a path alone.
    public func options(parsing text: String, now: Date = Date()) throws(ImageServerError) -> ProcessingOptions {
        var options = try defaultOptions(now: now)
        let segments = text.split(separator: "/").map(String.init)
        let (parsed, rest) = RawOption.leading(segments)
        if let first = rest.first { throw .invalidOption(first, reason: "not an option (name:arguments)") }
        for option in parsed { try applier.apply(option, to: &options, now: now) }
        return options
    }

    /// The configuration's defaults, then the `default` preset when there is one.
    private func defaultOptions(now: Date) throws(ImageServerError) -> ProcessingOptions {
        var options = ProcessingOptions(configuration: configuration)
        if applier.presets.options["default"] != nil {
            try applier.apply(RawOption(name: "preset", arguments: ["default"]), to: &options, now: now)
        }
        return options
    }
}

extension ImgproxyURLParser: ImageRequestParser {
    /// The serving side's view of an imgproxy URL: the source, the result key (the source URL,
    /// the canonical options and the output format plan's key), and the processing to run.
    public func imageRequest(path: Substring, accept: String?) throws(ImageServerError) -> ImageRequest {
        let request = try parse(path: String(path))
        let options = request.options
        let plan = OutputFormatPlan(options: options, accept: accept, configuration: configuration)
        let source: ImageSource
        if request.source.scheme == "local" {
            source = .local(String(request.source.url.dropFirst("local://".count)))
        } else if let url = URL(string: request.source.url), url.host != nil {
            source = .remote(url)
        } else {
            throw .invalidSource("\(request.source.url) is not a URL")
        }
        let processor = ImageProcessor()
        return ImageRequest(
            source: source,
            resultKey: request.source.url + "\n" + options.canonicalForm + "\n" + plan.cacheKey,
            variesWithAccept: plan.variesWithAccept && !options.raw,
            expires: options.expires.map { Date(timeIntervalSince1970: TimeInterval($0)) },
            filename: options.filename, isAttachment: options.returnAttachment,
            maximumSourceBytes: options.maxSourceFileSize > 0 ? options.maxSourceFileSize : nil,
            loggedPath: request.path
        ) { source in
            guard options.raw else { return try await processor.process(source.data, options: options, format: plan) }
            // `raw`: the source as it came, once it reads as an image (its header only).
            let header: ImageHeader
            do { header = try ImageHeader(probing: source.data) } catch { throw ImageServerError.unreadableSource("\(error)") }
            return ProcessedImage(
                data: source.data, format: header.format, pixelWidth: header.pixelWidth, pixelHeight: header.pixelHeight,
                frameCount: header.frameCount, source: header
            )
        }
    }
}

extension ImageServerConfiguration {
    /// The URL parser for these settings: the processing settings, the signing keys.
    public func makeParser() throws(ImageServerConfigurationError) -> ImgproxyURLParser {
        let keys = try URLSigningKey.pairs(hexKeys: self.keys.joined(separator: ","), hexSalts: salts.joined(separator: ","))
        let verifier = try SignatureVerifier(keys: keys, signatureSize: signatureSize, trustedSignatures: Set(trustedSignatures))
        var processing = self.processing
        if localFilesystemRoot != nil { processing.sourceSchemes.insert("local") }
        return try ImgproxyURLParser(configuration: processing, verifier: verifier)
    }
}
