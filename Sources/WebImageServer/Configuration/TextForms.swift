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
    /// Without leading and trailing spaces.
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }

    /// This string with zeros in front up to `length` characters.
    func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
