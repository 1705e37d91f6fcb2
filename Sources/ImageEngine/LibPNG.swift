import CPNGReaders
import Foundation

/// The reader for whole 8-bit PNG files: about twice as fast as libvips' loader (libspng) on
/// such files, which are most PNG photos, screenshots and icons. Ours (libdeflate's inflate,
/// SSE2 unfiltering) takes the files that are not interlaced, libpng's the others.
public enum LibPNG {
    /// Which reader decodes: both (the default), or one alone, for comparing them.
    public enum Reader: Sendable {
        /// Ours for the files it takes, libpng's for the rest.
        case both
        case libpngOnly
        /// Ours alone: `Refusal.leftToLibpng` for the files it does not take.
        case oursOnly
    }

    /// Why a file was not decoded.
    public enum Refusal: Error {
        /// 16-bit samples, or alpha or transparency when not allowed: left to libvips.
        case sixteenBitOrAlpha
        /// More pixels than allowed.
        case tooManyPixels
        /// libpng stopped: corrupt or truncated data.
        case corrupt
        /// Our reader leaves the file to libpng (`Reader.oursOnly`).
        case leftToLibpng
    }

    /// The pixels as RGBA8 in stored orientation, as libvips reads them (transparency made
    /// alpha, alpha 255 for files without), converted from `colourProfile` to sRGB when given
    /// (check it with `ColourConversion.supports`). Files with alpha or transparency are
    /// refused unless `allowsAlpha`.
    public static func decode(
        _ data: Data, maxPixels: Int, allowsAlpha: Bool, colourProfile: Data?, reader: Reader = .both
    ) throws(Refusal) -> PixelBuffer {
        var memory: UnsafeMutablePointer<UInt8>?
        var width: UInt32 = 0
        var height: UInt32 = 0
        let decode = switch reader {
        case .both: wi_png_decode_rgba8
        case .libpngOnly: wi_png_libpng_decode_rgba8
        case .oursOnly: wi_png_fast_decode_rgba8
        }
        let status = data.withUnsafeBytes { bytes in
            decode(bytes.baseAddress, bytes.count, UInt64(max(0, maxPixels)), allowsAlpha ? 1 : 0, &memory, &width, &height)
        }
        switch status {
        case 0: break
        case 1: throw .leftToLibpng
        case -2: throw .sixteenBitOrAlpha
        case -3: throw .tooManyPixels
        default: throw .corrupt
        }
        guard let memory else { throw .corrupt }
        let pixels = PixelBuffer(
            adopting: UnsafeMutableRawPointer(memory), count: Int(width) * Int(height) * 4, width: Int(width), height: Int(height), bands: 4
        )
        if let colourProfile {
            do { try pixels.convertToSRGB(from: colourProfile, opaque: false) } catch { throw .corrupt }
        }
        return pixels
    }

    /// `decode(...).resampled(to:orientation:hasAlpha:colourProfile:)` without a bitmap of the
    /// whole file allocated for it: our reader decodes into the thread's scratch buffer, which
    /// the resampler reads. `size` is the upright result's; colours are weighted by alpha with
    /// `hasAlpha` (which also allows files with alpha or transparency).
    public static func thumbnail(
        _ data: Data, maxPixels: Int, size: (width: Int, height: Int), orientation: Int, hasAlpha: Bool, colourProfile: Data?
    ) throws(Refusal) -> PixelBuffer {
        let stored = orientation >= 5 ? (width: size.height, height: size.width) : size
        var status: Int32 = 0
        // Every pixel is resampled into (the buffer is dropped on a refusal).
        let pixels = PixelBuffer(width: size.width, height: size.height, bands: 4, writingEveryByte: { output in
            status = data.withUnsafeBytes { bytes in
                wi_png_thumbnail_rgba8(
                    bytes.baseAddress, bytes.count, UInt64(max(0, maxPixels)), hasAlpha ? 1 : 0, output.assumingMemoryBound(to: UInt8.self),
                    Int32(stored.width), Int32(stored.height), Int32(orientation), hasAlpha ? 1 : 0
                )
            }
        })
        switch status {
        case 0: break
        case -2: throw .sixteenBitOrAlpha
        case -3: throw .tooManyPixels
        default: throw .corrupt
        }
        if let colourProfile {
            do { try pixels.convertToSRGB(from: colourProfile, opaque: !hasAlpha) } catch { throw .corrupt }
        }
        return pixels
    }
}
