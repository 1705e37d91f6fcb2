import WebImage

/// How results are written beside their format and quality, the same for every request:
/// imgproxy's compression settings (`JPEG_PROGRESSIVE`, `PNG_INTERLACED`, `PNG_QUANTIZE`,
/// `WEBP_PRESET`, `WEBP_EFFORT`, `AVIF_SPEED`, `JXL_EFFORT`), passed to libvips as imgproxy
/// passes them.
struct EncoderSettings: Sendable, Hashable {
    private var jpegProgressive = false
    private var pngInterlaced = false
    /// Palette colours of PNG results; 0: full colour.
    private var pngPaletteColors = 0
    private var webPPreset = ImageCoderOptions.WebPPreset.default
    private var webPEffort = 4
    private var avifSpeed = 8
    private var jxlEffort = 4

    /// imgproxy's defaults.
    init() {}

    init(configuration: ProcessingConfiguration) {
        jpegProgressive = configuration.jpegProgressive
        pngInterlaced = configuration.pngInterlaced
        pngPaletteColors = configuration.pngQuantize ? configuration.pngQuantizationColors : 0
        webPPreset = configuration.webPPreset
        webPEffort = configuration.webPEffort
        avifSpeed = configuration.avifSpeed
        jxlEffort = configuration.jxlEffort
    }

    /// `options` set to write `format` so.
    func apply(to options: inout ImageCoderOptions, format: ImageFormat) {
        switch format {
        case .jpeg: options.encodeInterlaced = jpegProgressive
        case .png:
            options.encodeInterlaced = pngInterlaced
            options.encodePaletteColorCount = pngPaletteColors
        case .webP:
            options.encodeWebPPreset = webPPreset
            options.encodeEffort = webPEffort
        // imgproxy's libvips call: effort 9 - speed (libvips' HEIF saver, AV1).
        case .avif: options.encodeEffort = 9 - avifSpeed
        case .jxl: options.encodeEffort = jxlEffort
        default: break
        }
    }

    /// The settings that differ from imgproxy's defaults, for the result key (`jpeg-progressive
    /// avif-speed:6`): a result made under other settings is another result. Empty at the defaults.
    var cacheKey: String {
        let defaults = EncoderSettings()
        var parts: [String] = []
        if jpegProgressive { parts.append("jpeg-progressive") }
        if pngInterlaced { parts.append("png-interlaced") }
        if pngPaletteColors != defaults.pngPaletteColors { parts.append("png-colors:\(pngPaletteColors)") }
        if webPPreset != defaults.webPPreset { parts.append("webp-preset:\(webPPreset.rawValue)") }
        if webPEffort != defaults.webPEffort { parts.append("webp-effort:\(webPEffort)") }
        if avifSpeed != defaults.avifSpeed { parts.append("avif-speed:\(avifSpeed)") }
        if jxlEffort != defaults.jxlEffort { parts.append("jxl-effort:\(jxlEffort)") }
        return parts.joined(separator: " ")
    }
}
