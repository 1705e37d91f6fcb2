import CBitmapKernels
import Foundation

/// The cached conversions of 8-bit RGB(A) pixels from an embedded colour profile to sRGB
/// (matrix-shaper tables, or an lcms2 transform), built once per distinct profile.
public enum ColourConversion {
    /// True when pixels with `bands` (3 or 4) samples can be converted from `profile`: an RGB
    /// profile lcms accepts. Builds and keeps the conversion.
    public static func supports(_ profile: Data, bands: Int = 4) -> Bool {
        profile.withUnsafeBytes { bytes in wi_icc_rgb8_supported(bytes.baseAddress, bytes.count, Int32(bands)) == 1 }
    }
}
