import WebImage

/// imgproxy's format names.
enum FormatNames {
    /// `jpeg`/`jpg`, `png`, `webp`, `avif`, `gif`, `heic`, `heif`, `jxl`, `tiff`, `bmp`, `svg`, `pdf`.
    static func format(named name: String) -> ImageFormat? {
        let format = ImageFormat(fileExtension: name)
        return format == .undefined || format == .raw || name.hasPrefix(".") ? nil : format
    }
}

extension String {
    /// Without leading and trailing spaces (U+0020 bytes, as Go trims: a space before a
    /// combining mark goes too). By bytes, in one pass: walking Characters backwards through a
    /// long run of combining marks took time quadratic in it (a 3 KB `Accept` header, 30 ms).
    var trimmingSpaces: String {
        let bytes = utf8
        guard let first = bytes.firstIndex(where: { $0 != 0x20 }), let last = bytes.lastIndex(where: { $0 != 0x20 }) else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }

    /// This string with zeros in front up to `length` characters.
    func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
