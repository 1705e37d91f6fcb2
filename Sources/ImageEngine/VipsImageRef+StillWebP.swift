import CVipsGlue
import Foundation

extension VipsImageRef {
    /// `data`, a still WebP, as libvips' `webpload_buffer` loads it (with `scale` when given: a
    /// thumbnail's shrink-on-load by libwebp): the same fields, metadata and samples, decoded in
    /// the thread that asks for the first rows (`wi_webp_reader_new`). libvips' loader decodes
    /// the whole image in its workers into a temporary image, where a time budget sees none of
    /// it; under `budgeted(by:)` this decode is counted, and stopped within a row of macroblocks
    /// once the budget is spent (lossy WebPs 512 pixels wide or more: libwebp's row jobs ask it).
    public static func loadStillWebP(_ data: Data, scale: Double? = nil) throws(VipsError) -> VipsImageRef {
        // libvips' reading of the header gives the fields, the metadata and the size at `scale`.
        let header = try load("webpload_buffer", data: data, options: scale.map { "scale=\($0)" } ?? "")
        let made = data.withUnsafeBytes { bytes in
            wi_webp_reader_new(
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, Int32(header.width), Int32(header.height), Int32(header.bands)
            )
        }
        guard let reader = made.map(UnsafeMutableRawPointer.init) else { throw VipsError("WebP: cannot allocate a reader") }
        guard let image = wi_rows_lazy(
            header.pointer, Int32(header.width), Int32(header.height), reader, wi_webp_reader_rows, wi_webp_reader_message, wi_webp_reader_free
        ) else { throw Vips.lastError(or: "WebP: cannot read its rows") }
        return VipsImageRef(image)
    }
}
