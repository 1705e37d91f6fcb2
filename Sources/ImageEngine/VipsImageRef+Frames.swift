import CLibvips
import CVipsGlue

extension VipsImageRef {
    /// Computes one frame: `index`, into `pixels` (RGBA8, rows packed, exactly the frame's bytes).
    public typealias FrameFill = @Sendable (_ index: Int, _ pixels: UnsafeMutableRawBufferPointer) throws -> Void

    /// A lazy 8-bit sRGB RGBA image of `count` frames of `width` x `frameHeight`, top to bottom,
    /// each made by `fill` when its rows are first read, one frame held at a time: a saver that
    /// writes the strip top to bottom encodes an animation holding one frame, not all of them.
    /// A frame `fill` throws for fails the read, the error's description in libvips' message.
    public static func lazyFrames(width: Int, frameHeight: Int, count: Int, fill: @escaping FrameFill) throws(VipsError) -> VipsImageRef {
        try Vips.start()
        let box = Unmanaged.passRetained(FrameFillBox(fill: fill, frameBytes: width * frameHeight * 4)).toOpaque()
        guard let image = wi_frames_lazy(
            Int32(clamping: width), Int32(clamping: frameHeight), Int32(clamping: count), box,
            { context, index, pixels in
                guard let context, let pixels else { return -1 }
                let box = Unmanaged<FrameFillBox>.fromOpaque(context).takeUnretainedValue()
                do {
                    try box.fill(Int(index), UnsafeMutableRawBufferPointer(start: pixels, count: box.frameBytes))
                    return 0
                } catch {
                    wi_error_push("wi_frames", "\(error)")
                    return -1
                }
            },
            { context in
                if let context { Unmanaged<FrameFillBox>.fromOpaque(context).release() }
            }
        ) else { throw Vips.lastError(or: "cannot make the animation") }
        return VipsImageRef(image)
    }
}

/// The callback of a lazy animation, kept alive by its libvips image.
private final class FrameFillBox: Sendable {
    let fill: VipsImageRef.FrameFill
    let frameBytes: Int

    init(fill: @escaping VipsImageRef.FrameFill, frameBytes: Int) {
        self.fill = fill
        self.frameBytes = frameBytes
    }
}
