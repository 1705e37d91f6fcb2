import Foundation
import ImageEngine
import WebImage

/// The metadata libvips reads from an encoded file.
struct WrittenMetadata {
    let exif: Data?
    let xmp: Data?
    let iptc: Data?
    let iccProfile: Data?
    /// The EXIF orientation (1 when there is none).
    let orientation: Int

    init(_ data: Data) throws {
        let loader = switch ImageFormat(sniffing: data) {
        case .jpeg: "jpegload_buffer"
        case .png: "pngload_buffer"
        case .webP: "webpload_buffer"
        case .tiff: "tiffload_buffer"
        case .gif: "gifload_buffer"
        default: "heifload_buffer"
        }
        let image = try VipsImageRef.load(loader, data: data)
        exif = image.blob(named: "exif-data")
        xmp = image.blob(named: "xmp-data")
        iptc = image.blob(named: "iptc-data")
        iccProfile = image.iccProfile
        orientation = image.orientation
    }

    /// Whether the EXIF block holds `text` (an ASCII tag's value).
    func exifContains(_ text: String) -> Bool {
        exif?.range(of: Data(text.utf8)) != nil
    }

    var isEmpty: Bool { exif == nil && xmp == nil && iptc == nil && iccProfile == nil }
}
