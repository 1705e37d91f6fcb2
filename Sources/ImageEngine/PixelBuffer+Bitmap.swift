import CBitmapKernels
import Foundation

/// Work on small bitmaps held whole (a few megapixels at most), done without libvips: on such
/// images libvips' fixed cost per pipeline and its scalar horizontal resize (8.14) take longer
/// than the decode itself.
extension PixelBuffer {
    /// This RGBA bitmap (stored orientation) resized with Lanczos-3, as libvips' thumbnail
    /// resizes, and turned upright from EXIF `orientation`: `size` is the upright result's, each
    /// side at most this bitmap's. With `hasAlpha`, colours are weighted by alpha while
    /// resizing (8-bit premultiplied, as Pillow does), so transparent pixels do not bleed into
    /// their neighbours; without, the bitmap must be opaque. Converted from `colourProfile` to
    /// sRGB when given (check it with `ColourConversion.supports`).
    public func resampled(
        to size: (width: Int, height: Int), orientation: Int = 1, hasAlpha: Bool = false, colourProfile: Data? = nil
    ) throws(VipsError) -> PixelBuffer {
        guard bands == 4 else { throw VipsError("resample: \(bands) bands, 4 expected") }
        let stored = orientation >= 5 ? (width: size.height, height: size.width) : size
        var failed = false
        // Every pixel is resampled into (the buffer is dropped when the resize fails).
        let result = PixelBuffer(width: size.width, height: size.height, bands: 4, writingEveryByte: { output in
            failed = wi_resample_rgba8(
                baseAddress.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), rowBytes,
                output.assumingMemoryBound(to: UInt8.self), Int32(stored.width), Int32(stored.height),
                Int32(orientation), hasAlpha ? 1 : 0
            ) != 0
        })
        if failed { throw VipsError("resample: cannot resize \(width)x\(height) to \(stored.width)x\(stored.height)") }
        if let colourProfile { try result.convertToSRGB(from: colourProfile, opaque: !hasAlpha) }
        return result
    }

    /// This RGBA bitmap turned upright from EXIF `orientation` (1...8): itself for 1.
    public func oriented(_ orientation: Int) -> PixelBuffer {
        guard orientation > 1, orientation <= 8, bands == 4 else { return self }
        let swapped = orientation >= 5
        return PixelBuffer(width: swapped ? height : width, height: swapped ? width : height, bands: 4, writingEveryByte: { output in
            wi_orient_rgba8(
                baseAddress.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), Int32(orientation),
                output.assumingMemoryBound(to: UInt8.self)
            )
        })
    }

    /// Converts the pixels in place from `profile` to sRGB with the cached conversion. Only for
    /// the bitmap's maker, before anybody else can read it. `opaque`: four bands whose alpha is
    /// 255 everywhere (a JPEG's), written whole with the colours.
    func convertToSRGB(from profile: Data, opaque: Bool) throws(VipsError) {
        let status = profile.withUnsafeBytes { bytes in
            wi_icc_rgb8_to_srgb(
                bytes.baseAddress, bytes.count, baseAddress.assumingMemoryBound(to: UInt8.self), width * height, Int32(bands),
                opaque ? 1 : 0
            )
        }
        if status != 0 { throw VipsError("the colour profile cannot be converted") }
    }
}
