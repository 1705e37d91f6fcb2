import Foundation
import WebImage

/// Reads imgproxy's URL format, `/{signature}/{options}/{source}`: made once from the
/// configuration (its presets are checked then), used for every request.
public struct ImgproxyURLParser: ImageRequestParser {
    /// The settings requests are read by.
    public let configuration: ProcessingConfiguration
    /// The signature check.
    public let verifier: SignatureVerifier
    let applier: OptionApplier
    /// The paths lately read: a result asked for again is not read again.
    private let recent = RecentRequests()

    /// A parser for `configuration`, checking signatures with `verifier` (none: signing off).
    /// Throws when a preset does not parse or holds an invalid option.
    public init(configuration: ProcessingConfiguration = ProcessingConfiguration(), verifier: SignatureVerifier? = nil) throws(ImageServerConfigurationError) {
        try self.init(configuration: configuration, verifier: verifier, optionTable: .imgproxy)
    }

    /// A parser reading the options `optionTable` declares, into the options and the result key.
    init(configuration: ProcessingConfiguration, verifier: SignatureVerifier?, optionTable: OptionTable) throws(ImageServerConfigurationError) {
        let presets = try Presets(parsing: configuration.presets, separator: configuration.argumentsSeparator)
        self.configuration = configuration
        if let verifier {
            self.verifier = verifier
        } else {
            self.verifier = try SignatureVerifier(keys: [])
        }
        self.applier = OptionApplier(presets: presets, allowSecurityOptions: configuration.allowSecurityOptions, table: optionTable)
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
    public func parse(path: String, now: Date = Date()) throws(ImageServerError) -> ImageRequest {
        if let request = recent.request(forPath: path, now: now) { return request }
        let request = try read(path: path, now: now)
        recent.remember(request, forPath: path)
        return request
    }

    /// `parse` without the recent paths.
    private func read(path: String, now: Date) throws(ImageServerError) -> ImageRequest {
        let (signature, rest) = try signedRest(of: path)
        let signedPath = "/" + rest

        let segments = rest.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        var options = try defaultOptions(now: now)
        let sourceSegments: [String]
        if configuration.onlyPresets {
            let names = segments[0].components(separatedBy: configuration.argumentsSeparator)
            try applier.apply(RawOption(name: "preset", arguments: names), to: &options, now: now)
            sourceSegments = Array(segments.dropFirst())
        } else {
            let (parsed, rest) = RawOption.leading(segments, separator: configuration.argumentsSeparator)
            for option in parsed {
                try checkAllowed(option)
                try applier.apply(option, to: &options, now: now)
            }
            sourceSegments = rest
        }
        let (source, written) = try SourceDecoding.decode(
            sourceSegments, schemes: configuration.sourceSchemes, reading: SourceURLReading(configuration)
        )
        if let written, !options.raw {
            guard let format = FormatNames.format(named: written) else {
                throw .invalidOption("extension \(written)", reason: "\(written) is not an image format")
            }
            options.format = format
        }
        return ImageRequest(
            signature: signature, path: signedPath, options: options, source: source,
            canonicalForm: applier.table.canonicalForm(of: options)
        )
    }

    /// The signature segment of `path` and the repaired rest after its slash (without the
    /// query), once the signature is checked against `/` + rest: image and info paths alike.
    func signedRest(of path: String) throws(ImageServerError) -> (signature: String, rest: String) {
        // By Unicode scalars, as imgproxy splits bytes: a `/` or `?` followed by a combining
        // mark is one Character, which a split by Characters would not see.
        var target = Substring(path).unicodeScalars
        if let query = target.firstIndex(of: "?") { target = target[..<query] }
        if target.first == "/" { target = target.dropFirst() }
        guard let slash = target.firstIndex(of: "/") else { throw .invalidPath("no options or source after the signature") }
        let signature = String(Substring(target[..<slash]))
        let rest = PathRepair.repaired(String(Substring(target[target.index(after: slash)...])))
        guard !signature.isEmpty, !rest.isEmpty else { throw .invalidPath("an empty signature or path") }
        try verifier.verify(signature: signature, path: "/" + rest)
        return (signature, rest)
    }

    /// The options a run of option segments asks for (`rs:fill:300:200/g:sm`), with the
    /// configuration's defaults and `default` preset applied: the options part of a path alone.
    public func options(parsing text: String, now: Date = Date()) throws(ImageServerError) -> ProcessingOptions {
        var options = try defaultOptions(now: now)
        let segments = text.split(separator: "/").map(String.init)
        let (parsed, rest) = RawOption.leading(segments, separator: configuration.argumentsSeparator)
        if let first = rest.first { throw .invalidOption(first, reason: "not an option (name\(configuration.argumentsSeparator)arguments)") }
        for option in parsed {
            try checkAllowed(option)
            try applier.apply(option, to: &options, now: now)
        }
        return options
    }

    /// Throws 404 for an option a URL writes when `ALLOWED_PROCESSING_OPTIONS` does not list its
    /// name as written (imgproxy's rule: `rs` and `resize` are listed apart; the options of the
    /// presets a URL names are not checked, the `preset` option itself is).
    private func checkAllowed(_ option: RawOption) throws(ImageServerError) {
        let allowed = configuration.allowedProcessingOptions
        if !allowed.isEmpty, !allowed.contains(option.name) { throw .optionNotAllowed(option.name) }
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

extension ImageServerConfiguration {
    /// The URL parser for these settings: the processing settings, the signing keys.
    public func makeParser() throws(ImageServerConfigurationError) -> ImgproxyURLParser {
        let keys = try URLSigningKey.pairs(hexKeys: self.keys.joined(separator: ","), hexSalts: salts.joined(separator: ","))
        let verifier = try SignatureVerifier(keys: keys, signatureSize: signatureSize, trustedSignatures: Set(trustedSignatures))
        var processing = self.processing
        if localFilesystemRoot != nil { processing.sourceSchemes.insert("local") }
        if usesS3 { processing.sourceSchemes.insert("s3") }
        return try ImgproxyURLParser(configuration: processing, verifier: verifier)
    }
}
