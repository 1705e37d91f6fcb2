import CJPEGCodec
import CPNGReaders
import Foundation

/// What decoding a file would cost, read from its structure without decoding: for refusing
/// small inputs that ask for a lot of work before libjpeg, libpng or libspng start on them.
public enum DecodeCost {
    /// The scans of a progressive JPEG, counted up to `limit + 1`; 0 for a sequential JPEG
    /// (at most one scan per component) or data that is not a JPEG.
    public static func progressiveJPEGScans(in data: Data, countingUpTo limit: Int) -> Int {
        data.withUnsafeBytes { bytes in
            Int(wi_jpeg_progressive_scans(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, max(0, limit)))
        }
    }

    /// Bytes the iCCP, zTXt and compressed iTXt chunks of a PNG inflate to in all, counted up
    /// to `limit + 1`; 0 when `data` is not a PNG.
    public static func pngInflatedMetadataBytes(in data: Data, countingUpTo limit: Int) -> Int {
        data.withUnsafeBytes { bytes in
            Int(wi_png_inflated_metadata(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, max(0, limit)))
        }
    }

    /// True when a PNG chunk other than image data declares more bytes than `data` holds after
    /// it (libpng would allocate that length, up to 2 GB, before finding the file short).
    public static func pngHasOverlongChunk(_ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            wi_png_overlong_chunk(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count) != 0
        }
    }
}
