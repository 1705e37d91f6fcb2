import CJPEGCodec
import CVipsGlue
import Foundation

/// libjpeg-turbo's TurboJPEG API: JPEG decode with DCT scaling and JPEG encode straight
/// between bytes and a bitmap. On small images it skips libvips' fixed cost per pipeline
/// (a worker thread and its buffers per evaluation), which dominates there. Each thread
/// keeps its own TurboJPEG handles and buffers.
public enum TurboJPEG {
    /// What the JPEG header says.
    public struct Header: Sendable {
        /// Stored width (before any EXIF orientation).
        public let width: Int
        /// Stored height (before any EXIF orientation).
        public let height: Int
        /// True for CMYK and YCCK files, which need a colour profile to become RGB.
        public let isCMYK: Bool
        /// True for one-component (greyscale) files.
        public let isGrey: Bool
    }

    /// The header, or nil when TurboJPEG cannot read this file (not a JPEG, 12-bit, ...).
    public static func header(of data: Data) -> Header? {
        var width: Int32 = 0
        var height: Int32 = 0
        var cmyk: Int32 = 0
        var grey: Int32 = 0
        let status = data.withUnsafeBytes { bytes in wi_tj_header(bytes.baseAddress, bytes.count, &width, &height, &cmyk, &grey) }
        guard status == 0, width > 0, height > 0 else { return nil }
        return Header(width: Int(width), height: Int(height), isCMYK: cmyk != 0, isGrey: grey != 0)
    }

    /// The stored size TurboJPEG decodes to at DCT scale 1/`shrink` (1, 2, 4 or 8): libjpeg
    /// rounds up (libvips' `jpegload` then crops to the size rounded down).
    public static func scaledSize(_ header: Header, shrink: Int) -> (width: Int, height: Int) {
        ((header.width + shrink - 1) / shrink, (header.height + shrink - 1) / shrink)
    }

    /// The largest DCT shrink (8, 4, 2, else 1) that still leaves at least `size`'s pixels on
    /// each side once cropped like libvips' shrunk load (the stored size over it, rounded down).
    public static func shrink(_ header: Header, covering size: (width: Int, height: Int)) -> Int {
        for shrink in [8, 4, 2] where header.width / shrink >= size.width && header.height / shrink >= size.height {
            return shrink
        }
        return 1
    }

    /// Decodes the whole file to RGBA8 (alpha 255) at DCT scale 1/`shrink` (`scaledSize`),
    /// converting the colours from `colourProfile` to sRGB when given (check it with
    /// `ColourConversion.supports`), turned upright from EXIF `orientation`. Any libjpeg
    /// warning is an error: TurboJPEG cannot tell a harmless one (stray bytes between markers)
    /// from a broken stream, so such files are left to a stricter reader. A progressive file's
    /// reading asks the calling thread's time budget (`WorkBudget.counting`) at every row of
    /// blocks of every scan, a decode of more than 4 MP at every row, and fails once it is spent.
    public static func decode(
        _ data: Data, header: Header, shrink: Int = 1, colourProfile: Data?, orientation: Int
    ) throws(VipsError) -> PixelBuffer {
        let size = scaledSize(header, shrink: shrink)
        var status: Int32 = 0
        // Every pixel is decoded into, alpha included (the buffer is dropped when the decode
        // fails): not zeroed first, which on a 2 MP photo took 8% of TurboJPEG's decode.
        let pixels = PixelBuffer(width: size.width, height: size.height, bands: 4, writingEveryByte: { output in
            status = data.withUnsafeBytes { bytes in
                wi_tj_decode_rgba8(
                    bytes.baseAddress, bytes.count, Int32(shrink), Int32(size.width), Int32(size.height),
                    output.assumingMemoryBound(to: UInt8.self), wi_budget_poll
                )
            }
        })
        if status != 0 { throw lastError() }
        if let colourProfile { try pixels.convertToSRGB(from: colourProfile, opaque: true) }
        return pixels.oriented(orientation)
    }

    /// Decodes at DCT scale 1/`shrink` (a progressive file at 1/8 from its DC scans alone, which
    /// give the same pixels), crops like libvips' shrunk `jpegload` (to the stored size over
    /// `shrink`, rounded down), resizes to `size` (upright) with Lanczos-3
    /// (`PixelBuffer.resampled`), converts from `colourProfile` when given, and turns the
    /// result upright from EXIF `orientation`: RGBA8, alpha 255. As `decode`, it asks the
    /// calling thread's time budget as it goes.
    public static func thumbnail(
        _ data: Data, header: Header, shrink: Int, size: (width: Int, height: Int), colourProfile: Data?, orientation: Int
    ) throws(VipsError) -> PixelBuffer {
        let scaled = scaledSize(header, shrink: shrink)
        let used = (width: max(1, header.width / shrink), height: max(1, header.height / shrink))
        let swapped = orientation >= 5
        let stored = swapped ? (width: size.height, height: size.width) : size
        guard stored.width <= used.width, stored.height <= used.height else {
            throw VipsError("TurboJPEG: \(size.width)x\(size.height) is larger than the image at 1/\(shrink)")
        }
        var status: Int32 = 0
        // Every pixel is resampled into (the buffer is dropped when the decode fails).
        let pixels = PixelBuffer(width: size.width, height: size.height, bands: 4, writingEveryByte: { output in
            status = data.withUnsafeBytes { bytes in
                wi_tj_thumbnail_rgba8(
                    bytes.baseAddress, bytes.count, Int32(shrink), Int32(scaled.width), Int32(scaled.height),
                    Int32(used.width), Int32(used.height), output.assumingMemoryBound(to: UInt8.self), Int32(stored.width), Int32(stored.height),
                    Int32(orientation), wi_budget_poll
                )
            }
        })
        if status != 0 { throw lastError() }
        if let colourProfile { try pixels.convertToSRGB(from: colourProfile, opaque: true) }
        return pixels
    }

    /// A progressive JPEG at DCT scale 1/8 (the stored size over 8, rounded up) decoded from its
    /// DC coefficients alone, as thumbnails of such files are: the samples libjpeg-turbo gives
    /// with block smoothing off, without its coefficient buffer for the whole image. RGBA8,
    /// alpha 255, stored orientation. Nil for a file it does not read (baseline, chroma
    /// subsampled, ...); an error for markers or DC scans libjpeg would find corrupt (AC scans
    /// are passed over unread).
    public static func oneEighthFromDC(_ data: Data, header: Header) throws(VipsError) -> PixelBuffer? {
        let size = scaledSize(header, shrink: 8)
        var status: Int32 = 0
        let pixels = PixelBuffer(width: size.width, height: size.height, bands: 4) { output in
            status = data.withUnsafeBytes { bytes in
                wi_jpeg_dc_rgba8(
                    bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, Int32(size.width), Int32(size.height),
                    output.baseAddress?.assumingMemoryBound(to: UInt8.self)
                )
            }
        }
        switch status {
        case 0: return pixels
        case 1: return nil
        default: throw VipsError("JPEG: corrupt markers or DC scans")
        }
    }

    /// The scans of a progressive JPEG that a decode at DCT scale 1/8 reads (the DC scans, and
    /// every scan of subsampled chroma), as a JPEG of its own; nil for a baseline file, a
    /// progressive one with nothing to leave out, or one that cannot be walked to its end.
    public static func scansReadAtOneEighth(of data: Data) -> Data? {
        var out = Data(count: data.count + 2)
        let length = out.withUnsafeMutableBytes { output in
            data.withUnsafeBytes { input in
                wi_jpeg_dc_scans(
                    input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count,
                    output.baseAddress?.assumingMemoryBound(to: UInt8.self)
                )
            }
        }
        return length > 0 ? out.prefix(length) : nil
    }

    /// Encodes 8-bit RGB or RGBA pixels (alpha ignored) as a baseline JPEG of `quality` 1...100,
    /// with 4:2:0 chroma below 90 and 4:4:4 from 90, as libvips' jpegsave does.
    public static func encode(_ pixels: PixelBuffer, quality: Int) throws(VipsError) -> Data {
        guard pixels.bands == 3 || pixels.bands == 4 else { throw VipsError("TurboJPEG: \(pixels.bands) bands cannot be encoded") }
        var jpeg: UnsafePointer<UInt8>?
        var length = 0
        let status = wi_tj_encode(
            pixels.baseAddress.assumingMemoryBound(to: UInt8.self), Int32(pixels.width), Int32(pixels.height),
            Int32(pixels.bands), Int32(quality), &jpeg, &length
        )
        guard status == 0, let jpeg else { throw lastError() }
        // The buffer is this thread's, reused by its next encode: copied out now.
        defer { wi_tj_encode_done() }
        return Data(bytes: jpeg, count: length)
    }

    private static func lastError() -> VipsError {
        VipsError("TurboJPEG: " + String(cString: wi_tj_error()))
    }
}
