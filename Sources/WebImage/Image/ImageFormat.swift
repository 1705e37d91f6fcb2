import Foundation

/// An image file format. Raw values are SDWebImage's `SDImageFormat` numbers, plus AVIF and JPEG XL.
public struct ImageFormat: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// SDWebImage's `SDImageFormat` number (AVIF 11, JPEG XL 12).
    public let rawValue: Int

    /// The format with this number; numbers not listed below make formats of their own.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Not recognised.
    public static let undefined = ImageFormat(rawValue: -1)
    /// JPEG (JFIF or EXIF).
    public static let jpeg = ImageFormat(rawValue: 0)
    /// PNG, APNG included.
    public static let png = ImageFormat(rawValue: 1)
    /// GIF, still or animated.
    public static let gif = ImageFormat(rawValue: 2)
    /// TIFF.
    public static let tiff = ImageFormat(rawValue: 3)
    /// WebP, still or animated.
    public static let webP = ImageFormat(rawValue: 4)
    /// HEIC: HEVC-coded HEIF (brands heic, heix, hevc, hevx).
    public static let heic = ImageFormat(rawValue: 5)
    /// HEIF with another brand (mif1, msf1).
    public static let heif = ImageFormat(rawValue: 6)
    /// PDF (its first page is the image).
    public static let pdf = ImageFormat(rawValue: 7)
    /// SVG.
    public static let svg = ImageFormat(rawValue: 8)
    /// BMP.
    public static let bmp = ImageFormat(rawValue: 9)
    /// Camera raw: recognised by SDWebImage's number only; no coder reads it.
    public static let raw = ImageFormat(rawValue: 10)
    /// AVIF (AV1-coded HEIF).
    public static let avif = ImageFormat(rawValue: 11)
    /// JPEG XL, bare codestream or container.
    public static let jxl = ImageFormat(rawValue: 12)

    /// Every named format but `.undefined`.
    /// True for the formats an image decoded with `decodeToHDR` is written to with its bit depth
    /// and colour encoding (`ImageCoderOptions.encodeKeepsHDR`): AVIF, HEIC, HEIF, JPEG XL, PNG.
    public var holdsHighDynamicRange: Bool { [.avif, .heic, .heif, .jxl, .png].contains(self) }

    public static let allKnown: [ImageFormat] = [
        .jpeg, .png, .gif, .tiff, .webP, .heic, .heif, .pdf, .svg, .bmp, .raw, .avif, .jxl,
    ]

    /// The format named by a MIME type such as `image/png` (parameters ignored), or `.undefined`.
    public init(mimeType: String) {
        // The exact type, as servers send it: no splitting or case folding (a server's metrics
        // read every response's type).
        if let exact = Self.allKnown.first(where: { $0.mimeType == mimeType }) {
            self = exact
            return
        }
        let essence = mimeType.split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        } ?? ""
        switch essence {
        case "image/jpg", "image/pjpeg": self = .jpeg
        case "image/x-png", "image/apng": self = .png
        case "image/x-ms-bmp": self = .bmp
        case "image/heic-sequence": self = .heic
        case "image/heif-sequence": self = .heif
        default: self = Self.allKnown.first { $0.mimeType == essence } ?? .undefined
        }
    }

    /// The format named by a file extension (`jpg`, `.PNG`), or `.undefined`.
    public init(fileExtension: String) {
        var name = fileExtension.lowercased()
        if name.hasPrefix(".") { name.removeFirst() }
        switch name {
        case "jpeg", "jpe", "jfif": self = .jpeg
        case "apng": self = .png
        case "tif": self = .tiff
        case "svgz": self = .svg
        default: self = Self.allKnown.first { $0.fileExtension == name } ?? .undefined
        }
    }

    /// The IANA media type, or `application/octet-stream` for `.undefined`.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .tiff: "image/tiff"
        case .webP: "image/webp"
        case .heic: "image/heic"
        case .heif: "image/heif"
        case .pdf: "application/pdf"
        case .svg: "image/svg+xml"
        case .bmp: "image/bmp"
        case .raw: "image/x-adobe-dng"
        case .avif: "image/avif"
        case .jxl: "image/jxl"
        default: "application/octet-stream"
        }
    }

    /// The usual file extension without the dot, or an empty string for `.undefined`.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .gif: "gif"
        case .tiff: "tiff"
        case .webP: "webp"
        case .heic: "heic"
        case .heif: "heif"
        case .pdf: "pdf"
        case .svg: "svg"
        case .bmp: "bmp"
        case .raw: "dng"
        case .avif: "avif"
        case .jxl: "jxl"
        default: ""
        }
    }

    /// A short lowercase name: "jpeg", "png", "webp", ...
    public var description: String {
        switch self {
        case .undefined: "undefined"
        case .jpeg: "jpeg"
        case .raw: "raw"
        default: fileExtension
        }
    }
}
