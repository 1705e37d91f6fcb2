import CTurboJPEG
import CVipsShim
import Foundation

/// libjpeg-turbo's TurboJPEG API: JPEG decode with DCT scaling and JPEG encode straight
/// between bytes and a bitmap. On small images it skips libvips' fixed cost per pipeline
/// (a worker thread and its buffers per evaluation), which dominates there.
public enum TurboJPEG {
    /// What the JPEG header says.
    public struct Header: Sendable {
        /// Stored width (before any EXIF orientation).
        public let width: Int
        /// Stored height (before any EXIF orientation).
        public let height: Int
        /// True for CMYK and YCCK files, which need a colour profile to become RGB.
        public let isCMYK: Bool
    }

    /// The header, or nil when TurboJPEG cannot read this file (not a JPEG, 12-bit, ...).
    public static func header(of data: Data) -> Header? {
        guard let handle = tjInitDecompress() else { return nil }
        defer { tjDestroy(handle) }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        let status = data.withUnsafeBytes { bytes in
            tjDecompressHeader3(
                handle, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt(bytes.count),
                &width, &height, &subsampling, &colorspace
            )
        }
        guard status == 0, width > 0, height > 0 else { return nil }
        let cmyk = colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
        return Header(width: Int(width), height: Int(height), isCMYK: cmyk)
    }

    /// The stored size TurboJPEG decodes to at DCT scale 1/`shrink` (1, 2, 4 or 8): libjpeg
    /// rounds up (libvips' `jpegload` then crops to the size rounded down).
    public static func scaledSize(_ header: Header, shrink: Int) -> (width: Int, height: Int) {
        ((header.width + shrink - 1) / shrink, (header.height + shrink - 1) / shrink)
    }

    /// Decodes to RGB8 (`bands` 3) or RGBA8 (4, alpha 255) at `size`, one of `scaledSize`'s answers, converting the
    /// colours from `iccProfile` to sRGB when given (check it with `ColourConversion.supports`).
    /// Any libjpeg warning is an error: TurboJPEG cannot tell a harmless one (stray bytes
    /// between markers) from a broken stream, so such files are left to a stricter reader.
    public static func decode(_ data: Data, size: (width: Int, height: Int), bands: Int, iccProfile: Data?) throws(VipsError) -> PixelBuffer {
        guard bands == 3 || bands == 4 else { throw VipsError("TurboJPEG: \(bands) bands cannot be decoded") }
        guard let handle = tjInitDecompress() else { throw VipsError("TurboJPEG: cannot start a decoder") }
        defer { tjDestroy(handle) }
        var failure: String?
        let format = bands == 4 ? TJPF_RGBA : TJPF_RGB
        let pixels = PixelBuffer(width: size.width, height: size.height, bands: bands) { output in
            let status = data.withUnsafeBytes { bytes in
                tjDecompress2(
                    handle, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt(bytes.count),
                    output.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(size.width), 0, Int32(size.height),
                    Int32(format.rawValue), 0
                )
            }
            if status != 0 { failure = tjGetErrorStr2(handle).map { String(cString: $0) } ?? "decode failed" }
        }
        if let failure { throw VipsError("TurboJPEG: \(failure)") }
        if let iccProfile {
            let status = iccProfile.withUnsafeBytes { profile in
                wi_icc_rgb8_to_srgb(
                    profile.baseAddress, profile.count, pixels.baseAddress.assumingMemoryBound(to: UInt8.self),
                    pixels.width * pixels.height, Int32(bands)
                )
            }
            if status != 0 { throw VipsError("TurboJPEG: the colour profile cannot be converted") }
        }
        return pixels
    }

    /// Encodes 8-bit RGB or RGBA pixels (alpha ignored) as a baseline JPEG of `quality` 1...100,
    /// with 4:2:0 chroma below 90 and 4:4:4 from 90, as libvips' jpegsave does.
    public static func encode(_ pixels: PixelBuffer, quality: Int) throws(VipsError) -> Data {
        guard pixels.bands == 3 || pixels.bands == 4 else { throw VipsError("TurboJPEG: \(pixels.bands) bands cannot be encoded") }
        guard let handle = tjInitCompress() else { throw VipsError("TurboJPEG: cannot start an encoder") }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var length: UInt = 0
        defer { if let output { tjFree(output) } }
        let format = pixels.bands == 4 ? TJPF_RGBA : TJPF_RGB
        let subsampling = quality >= 90 ? TJSAMP_444 : TJSAMP_420
        let status = tjCompress2(
            handle, pixels.baseAddress.assumingMemoryBound(to: UInt8.self), Int32(pixels.width), 0, Int32(pixels.height),
            Int32(format.rawValue), &output, &length, Int32(subsampling.rawValue), Int32(quality), 0
        )
        guard status == 0, let output else {
            throw VipsError("TurboJPEG: " + (tjGetErrorStr2(handle).map { String(cString: $0) } ?? "encode failed"))
        }
        return Data(bytes: output, count: Int(length))
    }
}
