import WebImage

/// The settings image requests are parsed and processed by: imgproxy's, with its meanings.
/// Plain stored properties, their defaults the values below (`ImageServerConfiguration.settings`
/// names the setting of each; docs/server-settings.md lists them, with imgproxy's defaults where they
/// differ): fill them from configuration, then make an `ImgproxyURLParser` and an
/// `ImageProcessor` from them once.
public struct ProcessingConfiguration: Sendable, Hashable {
    /// Quality of lossy formats, 1...100, when neither the URL nor `formatQuality` sets one.
    public var quality = 80
    /// Quality by output format.
    public var formatQuality: [ImageFormat: Int] = [.webP: 79, .avif: 63, .jxl: 77]
    /// Output formats for sources whose own format is not one of them: the first that keeps
    /// the source's alpha or animation.
    public var preferredFormats: [ImageFormat] = [.jpeg, .png, .gif]
    /// WebP when the URL names no format and the request's `Accept` takes it. Off by default, as
    /// in imgproxy: the response then varies with `Accept`, which a cache in front must key on.
    public var autoWebP = false
    /// AVIF when the URL names no format and `Accept` takes it, preferred to WebP; not for
    /// animations, which AVIF cannot hold here. Off by default, as `autoWebP`.
    public var autoAVIF = false
    /// WebP when `Accept` takes it, even over the URL's format.
    public var enforceWebP = false
    /// AVIF when `Accept` takes it, even over the URL's format.
    public var enforceAVIF = false
    /// Named option sets in imgproxy's text form, one `name=option/option` each. A preset
    /// named `default` applies to every request.
    public var presets: [String] = []
    /// URLs name presets only: `/{signature}/{preset}:{preset}/{source}`.
    public var onlyPresets = false
    /// URLs may carry the security options (`max_src_resolution`, ...); else they are 403.
    public var allowSecurityOptions = false
    /// Source schemes a URL may name; others are 404. `local` belongs here only when a
    /// local root is configured.
    public var sourceSchemes: Set<String> = ["http", "https"]
    /// Most pixels of a source, every frame counted. Checked from the header, before any
    /// pixel is decoded: 422 above it.
    public var maxSourceResolution = 50_000_000
    /// Most bytes of a source, enforced by the fetch: 422 above it. 0: the downloader's limit.
    public var maxSourceFileSize = 0
    /// Most frames of an animated source processed: its first ones, the others dropped (as
    /// imgproxy). 1000 so that animations stay animated (imgproxy's default, 1, processes the
    /// first frame only).
    public var maxAnimationFrames = 1000
    /// When above 0, each frame of an animation is held to this many pixels instead of the
    /// whole animation to `maxSourceResolution`.
    public var maxAnimationFrameResolution = 0
    /// Largest side of a result; 0 for no limit. A larger result is scaled down to fit, padding,
    /// extend and rotation counted (imgproxy's, since 3.29).
    public var maxResultDimension = 0
    /// Remove metadata (EXIF, XMP, IPTC) from results but the copyright (`keepCopyright`);
    /// `false` keeps what the output format holds. The ICC profile: `stripColorProfile`.
    public var stripMetadata = true
    /// Turn sources upright by their EXIF orientation.
    public var autoRotate = true
    /// What finds faces for `g:obj:face`, `blur_detections`, `draw_detections` and /info's
    /// `detect_objects` (`FACE_DETECTION_CASCADES` names its cascade files): opencv-data's by
    /// default. Not in the result key: results made under other cascades are kept until the
    /// cache is cleared.
    public var faceDetector = OpenCVFaceDetector.shared

    // MARK: Output: imgproxy's compression settings, its colour profile and copyright defaults

    /// Write JPEG results progressive (`JPEG_PROGRESSIVE`).
    public var jpegProgressive = false
    /// Write PNG results interlaced, Adam7 (`PNG_INTERLACED`).
    public var pngInterlaced = false
    /// Write PNG results with a palette of `pngQuantizationColors` colours, 2...256 (`PNG_QUANTIZE`).
    public var pngQuantize = false
    public var pngQuantizationColors = 256
    /// libwebp's preset for WebP results (`WEBP_PRESET`).
    public var webPPreset = ImageCoderOptions.WebPPreset.default
    /// The encoders' effort: WebP 1...6 (`WEBP_EFFORT`), JPEG XL 1...9 (`JXL_EFFORT`); AVIF's
    /// speed 0...9 (`AVIF_SPEED`), its effort 9 minus the speed.
    public var webPEffort = 4
    public var jxlEffort = 4
    public var avifSpeed = 8
    /// The default of `strip_color_profile`: results carry no ICC profile, their pixels sRGB.
    public var stripColorProfile = true
    /// The default of `keep_copyright`: stripping metadata keeps the copyright (EXIF, IPTC).
    public var keepCopyright = true
    /// The default of `enforce_thumbnail`: a HEIC or AVIF source's embedded thumbnail is the source.
    public var enforceThumbnail = false
    /// Source formats sent as they are when no other format is asked for (`skip_processing` adds
    /// to them); SVG never is.
    public var skipProcessingFormats: [ImageFormat] = []
    /// imgproxy's `SANITIZE_SVG`, always true here: SVG sources are rasterised, never served as
    /// SVG, so none of their scripts or event handlers reaches a client.
    public var sanitizeSVG = true
    /// imgproxy's `ALWAYS_RASTERIZE_SVG`, always true here: SVG is not an output format.
    public var alwaysRasterizeSVG = true
    /// Keep an HDR source HDR (more than 8 bits, its PQ or HLG encoding) in a result written to
    /// a format that holds it (AVIF, HEIC, JPEG XL, 16-bit PNG); false tone maps every result to SDR.
    public var preserveHDR = false
    /// What separates an option's name and arguments in URLs and presets (`rs:fill:300:200`).
    public var argumentsSeparator = ":"
    /// Option names a URL may write, as written (`rs` and `resize` are two names); empty: any.
    /// Presets' options are not held to it (the `preset` option itself is); a name not listed is
    /// 404.
    public var allowedProcessingOptions: [String] = []
    /// Info option names an `/info` URL may write, as written (`dc` and `dominant_colors` are
    /// two names); empty: any. A name not listed is 404.
    public var allowedInfoOptions: [String] = []
    /// Source URL rewrites, in order, before `baseURL`.
    public var urlReplacements: [URLReplacement] = []
    /// Put before every source URL that does not start with it already.
    public var baseURL = ""
    /// A base64 source's last `/` segment is a file name for search engines, not part of it.
    public var base64URLIncludesFilename = false
    /// What ends the path of a `local://` or `s3://` source URL and starts its query (an S3
    /// object's version); empty: nothing does, a `?` is part of the path.
    public var sourceURLQuerySeparator = "?"

    /// The defaults.
    public init() {}

    /// The quality for `format` when the URL sets none: `formatQuality`'s, else `quality`.
    func defaultQuality(for format: ImageFormat) -> Int {
        formatQuality[format] ?? quality
    }
}
