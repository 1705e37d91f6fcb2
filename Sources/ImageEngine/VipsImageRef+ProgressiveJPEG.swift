import CJPEGCodec
import CVipsGlue
import Foundation

extension VipsImageRef {
    /// `data`, a JPEG libjpeg reads whole before its first row (progressive), as libvips'
    /// `jpegload_buffer` loads it with `shrink` (1, 2, 4 or 8) and `fail_on=truncated` (or, for
    /// a file still arriving, `fail_on=none`: what is missing made up): the same fields,
    /// metadata and samples, read by our libjpeg reader rather than jpegload's. jpegload reads
    /// every scan in one call that nothing stops (a hundred refinement scans of a 100 MP image:
    /// seconds); ours asks the time budget its region is computed under (`budgeted(by:)`) at
    /// every row of blocks of every scan, and stops there once it is spent. Sequential: rows
    /// are read top to bottom, each once.
    public static func loadProgressiveJPEG(_ data: Data, shrink: Int = 1, failsOnTruncation: Bool = true) throws(VipsError) -> VipsImageRef {
        // libvips' reading of the header gives the fields and metadata; its pixels stay unread.
        let header = try load("jpegload_buffer", data: data, options: "fail_on=\(failsOnTruncation ? "truncated" : "none"),shrink=\(shrink)")
        let made = data.withUnsafeBytes { bytes in
            wi_jpeg_reader_new(
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, Int32(shrink), failsOnTruncation ? 1 : 0, wi_budget_poll
            )
        }
        guard let reader = made.map(UnsafeMutableRawPointer.init) else { throw VipsError("JPEG: cannot allocate a reader") }
        var (width, height, bands): (Int32, Int32, Int32) = (0, 0, 0)
        let opened = wi_jpeg_reader_open(OpaquePointer(reader), &width, &height, &bands) == 0
        guard opened, Int(bands) == header.bands else {
            let reason = opened ? "\(bands) samples a pixel, not \(header.bands)" : String(cString: wi_jpeg_reader_message(reader))
            wi_jpeg_reader_free(reader)
            throw VipsError("JPEG: \(reason)")
        }
        guard let image = wi_rows_lazy(
            header.pointer, width, height, reader, wi_jpeg_reader_rows, wi_jpeg_reader_message, wi_jpeg_reader_free
        ) else { throw Vips.lastError(or: "JPEG: cannot read its rows") }
        return VipsImageRef(image)
    }
}
