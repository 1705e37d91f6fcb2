import WebImage

/// The settings image requests are parsed and processed by: imgproxy's, under its names (the
/// `WEBIMAGE_` environment variable in brackets), with its defaults unless said otherwise.
/// Plain stored properties: fill them from configuration, then make an `ImgproxyURLParser`
/// and an `ImageProcessor` from them once.
public struct ProcessingConfiguration: Sendable, Hashable {
    /// Quality of lossy formats, 1...100, when neither the URL nor `formatQuality` sets one
    /// (`QUALITY`, 80).
    public var quality = 80
    /// Quality by output format (`FORMAT_QUALITY`, `webp=79,avif=63,jxl=77`).
    public var formatQuality: [ImageFormat: Int] = [.webP: 79, .avif: 63, .jxl: 77]
    /// Output formats for sources whose own format is not one of them: the first that keeps
    /// the source's alpha or animation (`PREFERRED_FORMATS`, `jpeg,png,gif`).
    public var preferredFormats: [ImageFormat] = [.jpeg, .png, .gif]
    /// WebP when the URL names no format and the request's `Accept` takes it (`AUTO_WEBP`;
    /// on here, off in imgproxy).
    public var autoWebP = true
    /// AVIF when the URL names no format and `Accept` takes it, preferred to WebP; not for
    /// animations, which AVIF cannot hold here (`AUTO_AVIF`; on here, off in imgproxy).
    public var autoAVIF = true
    /// WebP when `Accept` takes it, even over the URL's format (`ENFORCE_WEBP`).
    public var enforceWebP = false
    /// AVIF when `Accept` takes it, even over the URL's format (`ENFORCE_AVIF`).
    public var enforceAVIF = false
    /// Named option sets in imgproxy's text form, one `name=option/option` each (`PRESETS`,
    /// comma-separated there). A preset named `default` applies to every request.
    public var presets: [String] = []
    /// URLs name presets only: `/{signature}/{preset}:{preset}/{source}` (`ONLY_PRESETS`).
    public var onlyPresets = false
    /// URLs may carry the security options (`max_src_resolution`, ...); else they are 403
    /// (`ALLOW_SECURITY_OPTIONS`).
    public var allowSecurityOptions = false
    /// Source schemes a URL may name; others are 404. `local` belongs here only when a
    /// local root is configured.
    public var sourceSchemes: Set<String> = ["http", "https"]
    /// Most pixels of a source, every frame counted (`MAX_SRC_RESOLUTION`, in megapixels
    /// there: 50). Checked from the header, before any pixel is decoded: 422 above it.
    public var maxSourceResolution = 50_000_000
    /// Most bytes of a source; 0 for no limit (`MAX_SRC_FILE_SIZE`). Enforced by the fetch.
    public var maxSourceFileSize = 0
    /// Most frames of an animated source (`MAX_ANIMATION_FRAMES`; 1000 here, 1 in imgproxy):
    /// animations stay animated and a source with more frames is 422 (imgproxy cuts them).
    /// 1 processes the first frame only, as imgproxy's default does.
    public var maxAnimationFrames = 1000
    /// When above 0, each frame of an animation is held to this many pixels instead of the
    /// whole animation to `maxSourceResolution` (`MAX_ANIMATION_FRAME_RESOLUTION`).
    public var maxAnimationFrameResolution = 0
    /// Largest side of a result; 0 for no limit (`MAX_RESULT_DIMENSION`). A larger result is
    /// 422 here (imgproxy scales it down).
    public var maxResultDimension = 0
    /// Remove metadata from results (`STRIP_METADATA`). The encoders always remove it here,
    /// so `false` has no effect yet.
    public var stripMetadata = true
    /// Turn sources upright by their EXIF orientation (`AUTO_ROTATE`).
    public var autoRotate = true

    /// imgproxy's defaults, with this server's differences noted on each property.
    public init() {}

    /// The quality for `format` when the URL sets none: `formatQuality`'s, else `quality`.
    func defaultQuality(for format: ImageFormat) -> Int {
        formatQuality[format] ?? quality
    }
}
