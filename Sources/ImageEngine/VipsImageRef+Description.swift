import CLibvips

/// What libvips' header says an image's samples are, by libvips' own names (those `vipsheader`
/// prints and imgproxy's /info returns).
extension VipsImageRef {
    /// The interpretation's nickname: "srgb", "b-w", "cmyk", "rgb16", "grey16", "multiband"...
    public var interpretationName: String {
        Self.nickname(of: Int32(vips_image_get_interpretation(pointer).rawValue), in: vips_interpretation_get_type())
    }

    /// The band format's nickname: "uchar", "ushort", "float"...
    public var sampleFormatName: String {
        Self.nickname(of: vips_image_get_format(pointer).rawValue, in: vips_band_format_get_type())
    }

    /// The nickname of `value` in the GLib enum `type` ("unknown" for a value it does not name).
    private static func nickname(of value: Int32, in type: GType) -> String {
        guard let nick = vips_enum_nick(type, value) else { return "unknown" }
        return String(cString: nick)
    }
}
