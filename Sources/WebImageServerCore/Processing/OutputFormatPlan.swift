import WebImage

/// The output format, decided in two steps so that a result can be looked up before its
/// source is fetched: this value, from the options, the request's `Accept` and the
/// configuration (its `cacheKey` goes into the result's cache key, `variesWithAccept` says
/// whether the response needs `Vary: Accept`), then `format(for:)` once the source's header is
/// known. imgproxy's rules: the URL's format (unless an ENFORCE setting and `Accept` override
/// it); else AVIF, then WebP, when `Accept` takes them and AUTO is on; else the source's
/// format when it is preferred; else the first preferred format that keeps the source's alpha
/// and animation.
public struct OutputFormatPlan: Sendable, Hashable {
    /// The format the URL names; nil when the server chooses.
    public let requested: ImageFormat?
    /// `Accept` takes AVIF and AUTO_AVIF or ENFORCE_AVIF is on.
    public let prefersAVIF: Bool
    /// `Accept` takes WebP and AUTO_WEBP or ENFORCE_WEBP is on.
    public let prefersWebP: Bool
    /// `Accept` takes AVIF and ENFORCE_AVIF is on: AVIF even over the URL's format.
    public let enforcesAVIF: Bool
    /// `Accept` takes WebP and ENFORCE_WEBP is on.
    public let enforcesWebP: Bool
    /// The format depends on `Accept`: the response carries `Vary: Accept`.
    public let variesWithAccept: Bool
    /// How the format is written (the configuration's compression settings).
    let encoding: EncoderSettings
    private let preferredFormats: [ImageFormat]
    /// Alpha the options add (padding, extend, round corners) and do not flatten.
    private let addsTransparency: Bool
    private let flattens: Bool
    private let keepsAnimation: Bool

    /// The plan for a request with `options` and the `Accept` header `accept`.
    public init(options: ProcessingOptions, accept: String?, configuration: ProcessingConfiguration) {
        let types = AcceptHeader.mediaTypes(in: accept)
        let takesAVIF = types.contains("image/avif"), takesWebP = types.contains("image/webp")
        requested = options.format
        prefersAVIF = takesAVIF && (configuration.autoAVIF || configuration.enforceAVIF)
        prefersWebP = takesWebP && (configuration.autoWebP || configuration.enforceWebP)
        enforcesAVIF = takesAVIF && configuration.enforceAVIF
        enforcesWebP = takesWebP && configuration.enforceWebP
        let negotiates = configuration.enforceAVIF || configuration.enforceWebP
        // `raw` sends the source as it is, whatever the client accepts.
        variesWithAccept = !options.raw && (options.format == nil ? negotiates || configuration.autoAVIF || configuration.autoWebP : negotiates)
        preferredFormats = configuration.preferredFormats.isEmpty ? [.jpeg, .png, .gif] : configuration.preferredFormats
        flattens = options.background != nil
        addsTransparency = !options.padding.isEmpty || options.extend || options.roundCorners > 0
        keepsAnimation = options.maxAnimationFrames > 1
        encoding = EncoderSettings(configuration: configuration)
    }

    /// What the result's format depends on besides the source: the URL's format or `auto`,
    /// the `Accept` preferences that can change it (`auto+avif+webp`, `png`, `png+webp`), and
    /// the compression settings that differ from imgproxy's (`png jpeg-progressive`).
    public var cacheKey: String {
        var key = requested.map(ProcessingOptions.name) ?? "auto"
        let (avif, webP) = requested == nil ? (prefersAVIF, prefersWebP) : (enforcesAVIF, enforcesWebP)
        if avif { key += "+avif" }
        if webP { key += "+webp" }
        let encoding = encoding.cacheKey
        return encoding.isEmpty ? key : key + " " + encoding
    }

    /// The format of the result for a source with this header. Throws 422 for a format the
    /// server cannot write (SVG: sources are rasterised, never passed through).
    public func format(for source: ImageHeader) throws(ImageServerError) -> ImageFormat {
        let animated = isAnimated(source)
        let format: ImageFormat
        switch requested {
        case nil:
            if prefersAVIF && !animated {
                format = .avif
            } else if prefersWebP {
                format = .webP
            } else if preferredFormats.contains(source.format) {
                format = source.format
            } else {
                let transparent = !flattens && (source.hasAlpha || addsTransparency)
                format = preferredFormats.first { Self.keeps($0, animated: animated, transparent: transparent) } ?? preferredFormats[0]
            }
        case let requested?:
            format = enforcesAVIF && !animated ? .avif : enforcesWebP ? .webP : requested
        }
        guard VipsImageCoder.encodableFormats.contains(format) else {
            throw .unsupportedOutputFormat("\(format) cannot be written")
        }
        return format
    }

    /// The format a made `image` is written in: `planned`, unless it cannot hold the image
    /// (AVIF needs 16 pixels a side, imgproxy's rule: a smaller result is PNG, or JPEG without
    /// alpha).
    static func format(_ planned: ImageFormat, fitting image: Image) -> ImageFormat {
        guard planned == .avif, min(image.pixelWidth, image.pixelHeight) < 16 else { return planned }
        return image.hasAlpha ? .png : .jpeg
    }

    /// The largest side `format` holds (WebP 16383, AVIF and HEIF 16384, GIF 65535): a larger
    /// result is scaled down to it.
    static func largestSide(of format: ImageFormat) -> Int {
        [ImageFormat.webP: 16383, .avif: 16384, .heic: 16384, .heif: 16384, .gif: 65535][format] ?? Int.max
    }

    /// The source is processed as an animation (kept unless `maxAnimationFrames` is 1).
    func isAnimated(_ source: ImageHeader) -> Bool {
        keepsAnimation && source.frameCount > 1
    }

    /// True for formats that hold animation (GIF, WebP; AVIF not in libvips 8.14).
    static func animates(_ format: ImageFormat) -> Bool {
        format == .gif || format == .webP
    }

    /// True for formats that hold alpha.
    static func holdsAlpha(_ format: ImageFormat) -> Bool {
        format != .jpeg
    }

    private static func keeps(_ format: ImageFormat, animated: Bool, transparent: Bool) -> Bool {
        (!animated || animates(format)) && (!transparent || holdsAlpha(format))
    }
}
