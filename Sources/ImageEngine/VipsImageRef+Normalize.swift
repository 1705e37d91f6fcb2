import Foundation

extension VipsImageRef {
    /// This image as 8-bit sRGB with 3 or 4 bands: an embedded profile other than sRGB (or
    /// CMYK) goes through an ICC transform; grey, 16-bit and other spaces are converted.
    public func normalizedToSRGB() throws(VipsError) -> VipsImageRef {
        var image = self
        if image.isCMYK {
            image = try image.iccTransformedToSRGB()
        } else if image.hasICCProfile, let profile = image.iccProfile, !Self.isSRGBProfile(profile) {
            if image.width * image.height <= Self.cachedTransformMaxPixels, image.isSRGB,
               let converted = try image.renderedInSRGB(from: profile) {
                image = try VipsImageRef.wrapping(converted)
            } else {
                image = try image.iccTransformedToSRGB()
            }
        }
        if !image.isSRGB || image.bands < 3 {
            image = try image.inSRGBSpace()
        }
        if !image.isEightBit {
            image = try image.cast(to: .uchar)
        }
        return image
    }

    /// Up to this size (16 MB as RGBA) an image with a colour profile is rendered and converted
    /// with a cached transform, which saves the ~10 ms libvips spends building a transform per
    /// call. Larger images stream through libvips' `icc_transform` instead of being held whole.
    public static let cachedTransformMaxPixels = 4_000_000

    /// True when an ICC profile describes sRGB (its description names it), so that the
    /// transform, which costs real time on most photos, can be skipped.
    public static func isSRGBProfile(_ profile: Data?) -> Bool {
        guard let profile else { return true }
        // Searched in the raw bytes: `Data.range(of:)` went through NSData, copying the
        // profile into a new one for each search, on every JPEG decode with a profile.
        return profile.withUnsafeBytes { bytes in
            sRGBNames.contains { name in
                bytes.count >= name.count && (0...(bytes.count - name.count)).contains { start in
                    bytes[start] == name[0] && name.indices.allSatisfy { bytes[start + $0] == name[$0] }
                }
            }
        }
    }

    /// "sRGB" in ASCII (v2 descriptions) and in UTF-16BE (v4's multi-localized ones).
    private static let sRGBNames: [[UInt8]] = [Array("sRGB".utf8), [0, 0x73, 0, 0x52, 0, 0x47, 0, 0x42]]
}
