import CVipsShim
import Foundation

/// libpng's reader for whole PNG files without transparency: about twice as fast as libvips'
/// loader (libspng) on such files, which are most PNG photos and screenshots.
public enum LibPNG {
    /// Why a file was not decoded.
    public enum Refusal: Error {
        /// Alpha, transparency or 16-bit samples: left to libvips.
        case notOpaqueEightBit
        /// More pixels than allowed.
        case tooManyPixels
        /// libpng stopped: corrupt or truncated data.
        case corrupt
    }

    /// The pixels as RGBA8 with alpha 255, in stored orientation, converted from `colourProfile`
    /// to sRGB when given (check it with `ColourConversion.supports`).
    public static func decodeOpaque(_ data: Data, maxPixels: Int, colourProfile: Data?) throws(Refusal) -> PixelBuffer {
        var memory: UnsafeMutablePointer<UInt8>?
        var width: UInt32 = 0
        var height: UInt32 = 0
        let status = data.withUnsafeBytes { bytes in
            wi_png_decode_opaque_rgba8(bytes.baseAddress, bytes.count, UInt64(max(0, maxPixels)), &memory, &width, &height)
        }
        switch status {
        case 0: break
        case -2: throw .notOpaqueEightBit
        case -3: throw .tooManyPixels
        default: throw .corrupt
        }
        guard let memory else { throw .corrupt }
        let pixels = PixelBuffer(
            adopting: UnsafeMutableRawPointer(memory), count: Int(width) * Int(height) * 4, width: Int(width), height: Int(height), bands: 4
        )
        if let colourProfile {
            do { try pixels.convertToSRGB(from: colourProfile) } catch { throw .corrupt }
        }
        return pixels
    }
}
