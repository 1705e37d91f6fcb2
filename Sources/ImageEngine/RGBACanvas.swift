import CLibvips
import CVipsGlue

/// An RGBA8 canvas that images are drawn on in place: APNG's compositing, which must neither
/// copy the canvas for each frame nor abort when memory runs out (every allocation here is
/// one that may fail, and throws then).
///
/// Not `Sendable`: its owner keeps it behind a lock.
public final class RGBACanvas {
    public let width: Int
    public let height: Int
    private let memory: UnsafeMutablePointer<UInt8>
    /// False once `takePixels` handed the memory to a bitmap.
    private var ownsMemory = true

    /// A transparent canvas; throws when its memory cannot be had.
    public init(width: Int, height: Int) throws(VipsError) {
        let bytes = Self.byteCount(width: width, height: height)
        guard width > 0, height > 0, let bytes, let memory = g_try_malloc0(gsize(bytes)) else {
            throw VipsError("cannot allocate a canvas of \(width)x\(height) pixels")
        }
        self.width = width
        self.height = height
        self.memory = memory.assumingMemoryBound(to: UInt8.self)
    }

    deinit {
        if ownsMemory { g_free(memory) }
    }

    /// The canvas's pixels as a bitmap, without a copy. The canvas must not be used afterwards.
    public func takePixels() -> PixelBuffer {
        ownsMemory = false
        return PixelBuffer(adopting: memory, count: width * height * 4, width: width, height: height, bands: 4)
    }

    /// `width * height * 4`, or nil when that overflows.
    private static func byteCount(width: Int, height: Int) -> Int? {
        let pixels = width.multipliedReportingOverflow(by: height)
        let bytes = pixels.partialValue.multipliedReportingOverflow(by: 4)
        return pixels.overflow || bytes.overflow ? nil : bytes.partialValue
    }

    /// Computes the 8-bit RGBA `image` onto the canvas at (`x`, `y`) tile by tile, replacing the
    /// pixels or blending over them; it must fit.
    public func draw(_ image: VipsImageRef, x: Int, y: Int, blendingOver: Bool) throws(VipsError) {
        guard wi_canvas_draw(image.pointer, memory, Int32(width), Int32(height), Int32(x), Int32(y), blendingOver ? 1 : 0) == 0 else {
            throw Vips.lastError(or: "cannot draw on the canvas")
        }
    }

    /// Makes the area transparent.
    public func clear(x: Int, y: Int, width: Int, height: Int) {
        for row in y..<(y + height) {
            (memory + (row * self.width + x) * 4).update(repeating: 0, count: width * 4)
        }
    }

    /// A copy of the area; throws when its memory cannot be had.
    public func copy(x: Int, y: Int, width: Int, height: Int) throws(VipsError) -> PixelBuffer {
        guard let bytes = Self.byteCount(width: width, height: height), let copy = g_try_malloc(gsize(max(1, bytes))) else {
            throw VipsError("cannot allocate \(width)x\(height) pixels")
        }
        for row in 0..<height {
            (copy + row * width * 4).copyMemory(from: memory + ((y + row) * self.width + x) * 4, byteCount: width * 4)
        }
        return PixelBuffer(adopting: copy, count: bytes, width: width, height: height, bands: 4)
    }

    /// Puts a copy made by `copy` back at (`x`, `y`).
    public func paste(_ pixels: PixelBuffer, x: Int, y: Int) {
        for row in 0..<pixels.height {
            (memory + ((y + row) * width + x) * 4).update(
                from: pixels.baseAddress.assumingMemoryBound(to: UInt8.self) + row * pixels.rowBytes, count: pixels.rowBytes
            )
        }
    }

    /// `body` given a libvips image over the canvas as it is, without copying it: the image
    /// must not outlive the call (render what you need from it inside).
    public func withImage<R>(_ body: (VipsImageRef) throws(VipsError) -> R) throws(VipsError) -> R {
        try Vips.start()
        guard let image = wi_image_from_memory(memory, width * height * 4, Int32(width), Int32(height), 4, nil, { _ in }) else {
            throw Vips.lastError(or: "cannot wrap the canvas")
        }
        return try body(VipsImageRef(image))
    }
}
