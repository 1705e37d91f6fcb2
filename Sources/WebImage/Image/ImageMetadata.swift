import Foundation
internal import ImageEngine

/// What a file carries beside its pixels, as libvips names it: EXIF, XMP, IPTC and the ICC
/// profile, copied out at decode (a few kilobytes: an image does not keep its file alive for
/// them) and written again by encoders asked to keep them (`encodeKeepsMetadata`).
struct ImageMetadata: Sendable, Equatable {
    /// The EXIF block (a JPEG's APP1 payload, "Exif\0\0" and all).
    var exif: Data?
    var xmp: Data?
    var iptc: Data?
    /// The file's ICC profile.
    var iccProfile: Data?

    static let none = ImageMetadata()

    var isEmpty: Bool { exif == nil && xmp == nil && iptc == nil && iccProfile == nil }

    /// The metadata fields of a libvips image just loaded.
    init(header image: VipsImageRef) {
        exif = image.blob(named: "exif-data")
        xmp = image.blob(named: "xmp-data")
        iptc = image.blob(named: "iptc-data")
        iccProfile = image.iccProfile
    }

    init(exif: Data? = nil, xmp: Data? = nil, iptc: Data? = nil, iccProfile: Data? = nil) {
        (self.exif, self.xmp, self.iptc, self.iccProfile) = (exif, xmp, iptc, iccProfile)
    }

    /// The profile that describes decoded pixels: the file's when it is sRGB (its pixels are
    /// left as they are), libvips' sRGB profile when they were converted from another profile
    /// (every decode converts to sRGB), none when the file has none.
    var decodedPixelsProfile: Data? {
        guard let iccProfile else { return nil }
        return VipsImageRef.isSRGBProfile(iccProfile) ? iccProfile : Self.sRGBProfile
    }

    private static let sRGBProfile = try? Vips.builtInProfile("srgb")
}
