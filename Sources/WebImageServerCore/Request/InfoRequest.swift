import Foundation
import WebImage

/// An `/info` request read from its URL path (imgproxy Pro's
/// `/info/{signature}/{info options}/{source}`): signature checked, info options parsed over
/// imgproxy's defaults, source decoded as an image URL's.
public struct InfoRequest: Sendable, Equatable {
    /// The signature segment as given.
    public var signature: String
    /// The path after the signature, repaired, without the query: what the signature signs.
    public var path: String
    /// The fields asked for.
    public var options: InfoOptions
    /// Where the image comes from.
    public var source: SourceURL
    /// `cachebuster`: part of the info's key, so that a changed one is read again.
    public var cacheBuster: String?
    /// `expires`: when the URL stops being valid (checked when the path is parsed); caps the
    /// answer's `max-age`.
    public var expires: Date?
    /// The source's limits: `MAX_SRC_RESOLUTION` and `MAX_SRC_FILE_SIZE`, or what the URL's
    /// `max_src_resolution` and `max_src_file_size` set (with `ALLOW_SECURITY_OPTIONS`).
    public var limits: SourceLimits
    /// `hashsum`: the digest the source's bytes must have (imgproxy Pro's), else 422; nil: none.
    public var expectedHashsum: ExpectedHashsum?

    /// A digest of a kind and its value, lowercase hex.
    public struct ExpectedHashsum: Sendable, Equatable, CustomStringConvertible {
        /// The kind of digest.
        public var kind: Hashsum
        /// Its value, lowercase hex.
        public var hex: String

        /// `kind`'s digest `hex` (either case).
        public init(kind: Hashsum, hex: String) {
            self.kind = kind
            self.hex = hex.lowercased()
        }

        /// `sha256:…`.
        public var description: String { kind.rawValue + ":" + hex }
    }

    /// The limits a source is read under, in pixels and bytes (0: no byte limit).
    public struct SourceLimits: Sendable, Equatable {
        /// The most pixels the source (a frame of it) may have.
        public var maxResolution: Int
        /// The most bytes the source may have; 0 for no limit.
        public var maxFileSize: Int

        /// Limits of `maxResolution` pixels and `maxFileSize` bytes.
        public init(maxResolution: Int, maxFileSize: Int) {
            self.maxResolution = maxResolution
            self.maxFileSize = maxFileSize
        }
    }

    /// A request made of its parts.
    public init(
        signature: String, path: String, options: InfoOptions, source: SourceURL, cacheBuster: String? = nil, expires: Date? = nil,
        limits: SourceLimits
    ) {
        self.signature = signature
        self.path = path
        self.options = options
        self.source = source
        self.cacheBuster = cacheBuster
        self.expires = expires
        self.limits = limits
    }
}

extension ImageRequestParser {
    /// A URL format without `/info`: every info path is 404.
    public func parseInfo(path: String, now: Date) throws(ImageServerError) -> InfoRequest {
        throw .invalidPath("this URL format has no /info")
    }
}

extension ImgproxyURLParser {
    /// The `/info` request `path` asks for: the path after `/info`, from the slash before the
    /// signature (`/{signature}/bh:4:3/th:1/plain/https://example.com/a.jpg`), signed as an image
    /// path is (the signature signs what follows it). Errors carry the status: 403 for the
    /// signature, 400 for an option (unknown, Pro's video and classification, a bad
    /// argument: named), 404 for an option `ALLOWED_INFO_OPTIONS` does not list, the path or the
    /// source.
    public func parseInfo(path: String, now: Date) throws(ImageServerError) -> InfoRequest {
        let (signature, rest) = try signedRest(of: path)
        let segments = rest.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let (parsed, sourceSegments) = RawOption.leading(segments, separator: configuration.argumentsSeparator)
        var written: [String] = []
        var expectedHashsum: InfoRequest.ExpectedHashsum?
        // `cachebuster`, `expires` and the source limits are read as processing URLs read them
        // (an expired URL 403, a security option without `ALLOW_SECURITY_OPTIONS` 403).
        var shared = ProcessingOptions(configuration: configuration)
        for option in parsed {
            let allowed = configuration.allowedInfoOptions
            if !allowed.isEmpty, !allowed.contains(option.name) { throw .optionNotAllowed(option.name) }
            if Self.processingOptionsOfInfo.contains(option.name) {
                try applier.apply(option, to: &shared, now: now)
                continue
            }
            if option.name == "hashsum" || option.name == "hs" {
                expectedHashsum = try Self.expectedHashsum(option)
                continue
            }
            // Info arguments hold no `:`: joined by it whatever `ARGUMENTS_SEPARATOR` is.
            let text = ([option.name] + option.arguments).joined(separator: ":")
            // Read alone first, so that an error names the option as written.
            do {
                _ = try InfoOptions(parsing: text)
            } catch {
                guard case .invalidOption(let reason) = error else { throw .invalidOption(option.name, reason: "\(error)") }
                throw .invalidOption(option.name, reason: reason)
            }
            written.append(text)
        }
        let options: InfoOptions
        do {
            options = try InfoOptions(parsing: written.joined(separator: "/"))
        } catch {
            throw .invalidOption("info options", reason: "\(error)")
        }
        let (source, fileExtension) = try SourceDecoding.decode(
            sourceSegments, schemes: configuration.sourceSchemes, reading: SourceURLReading(configuration)
        )
        if let fileExtension { throw .invalidSource("an info URL names no output format (.\(fileExtension))") }
        let expires = shared.expires.map { Date(timeIntervalSince1970: TimeInterval($0)) }
        var request = InfoRequest(
            signature: signature, path: "/" + rest, options: options, source: source, cacheBuster: shared.cacheBuster, expires: expires,
            limits: InfoRequest.SourceLimits(maxResolution: shared.maxSourceResolution, maxFileSize: shared.maxSourceFileSize)
        )
        request.expectedHashsum = expectedHashsum
        return request
    }

    /// `hashsum:%type:%hashsum` (imgproxy Pro's): `none` for no check, else `md5`, `sha1`,
    /// `sha256` or `sha512` and the digest in hex, of that digest's length.
    private static func expectedHashsum(_ option: RawOption) throws(ImageServerError) -> InfoRequest.ExpectedHashsum? {
        guard let kindName = option.arguments.first, !kindName.isEmpty else { throw .invalidOption(option.name, reason: "the hashsum type is missing") }
        if kindName == "none" { return nil }
        guard let kind = Hashsum(rawValue: kindName) else {
            throw .invalidOption(option.name, reason: "\(kindName) is not none, md5, sha1, sha256 or sha512")
        }
        let hex = option.arguments.count > 1 ? option.arguments[1] : ""
        guard hex.count == kind.hex(of: Data()).count, hex.allSatisfy(\.isHexDigit) else {
            throw .invalidOption(option.name, reason: "the \(kindName) digest must be \(kind.hex(of: Data()).count) hexadecimal digits")
        }
        return InfoRequest.ExpectedHashsum(kind: kind, hex: hex)
    }

    /// The info options that are processing options too, by every name.
    private static let processingOptionsOfInfo: Set<String> = [
        "cachebuster", "cb", "expires", "exp", "max_src_resolution", "msr", "max_src_file_size", "msfs",
    ]
}
