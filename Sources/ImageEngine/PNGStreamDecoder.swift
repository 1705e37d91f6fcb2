import CPNGReaders
import Foundation

/// Decodes a PNG as its bytes arrive (libpng's push reader), interlaced or not, into RGBA8.
/// libvips needs the whole file for PNG; this gives the rows and Adam7 passes seen so far.
///
/// Not thread-safe: the owner serialises calls (the incremental coder holds it behind a lock).
public final class PNGStreamDecoder {
    private let stream: OpaquePointer

    /// Returns nil when libpng cannot allocate its state.
    public init?(maxPixels: Int) {
        guard let stream = wi_png_stream_new(UInt64(max(0, maxPixels))) else { return nil }
        self.stream = stream
    }

    deinit {
        wi_png_stream_free(stream)
    }

    /// Feeds the next bytes of the file. Returns false once the data is found corrupt.
    @discardableResult
    public func feed(_ data: Data) -> Bool {
        guard !data.isEmpty else { return true }
        return data.withUnsafeBytes { wi_png_stream_feed(stream, $0.baseAddress, $0.count) == 0 }
    }

    /// True when some rows are decoded.
    public var hasRows: Bool { wi_png_stream_has_rows(stream) != 0 }
    /// True after the last row of the last pass.
    public var isComplete: Bool { wi_png_stream_is_complete(stream) != 0 }

    /// The pixels decoded so far (undecoded rows transparent), or nil before the first row.
    public func snapshot() -> PixelBuffer? {
        let width = Int(wi_png_stream_width(stream))
        let height = Int(wi_png_stream_height(stream))
        guard hasRows, width > 0, height > 0, let pixels = wi_png_stream_pixels(stream) else { return nil }
        return PixelBuffer(
            copying: UnsafeRawBufferPointer(start: pixels, count: width * height * 4),
            width: width, height: height, bands: 4
        )
    }
}
