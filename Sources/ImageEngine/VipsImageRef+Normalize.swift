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
        let ascii = Data("sRGB".utf8)
        let utf16 = Data([0, 0x73, 0, 0x52, 0, 0x47, 0, 0x42])
        return profile.range(of: ascii) != nil || profile.range(of: utf16) != nil
    }
}
