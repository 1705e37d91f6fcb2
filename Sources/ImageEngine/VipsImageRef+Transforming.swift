import CLibvips
import CBitmapKernels
import CVipsGlue

extension VipsImageRef {
    /// The area `width` x `height` at (`x`, `y`), which must lie inside the image.
    public func extractingArea(x: Int, y: Int, width: Int, height: Int) throws(VipsError) -> VipsImageRef {
        guard let result = wi_call_named("extract_area", "input", pointer, "left=\(x),top=\(y),width=\(width),height=\(height)") else {
            throw Vips.lastError(or: "extract_area failed")
        }
        return VipsImageRef(result)
    }

    /// This 8-bit RGBA or opaque RGB image resized down to `width` x `height` (each at most this
    /// image's) by our resampler, as `PixelBuffer.resampled` resizes a bitmap, into RGBA: lazily,
    /// computed strip by strip when read. `premultiply` weights the colours by alpha meanwhile.
    public func resampled(width: Int, height: Int, premultiply: Bool) throws(VipsError) -> VipsImageRef {
        guard let result = wi_resample_lazy(pointer, Int32(width), Int32(height), premultiply ? 1 : 0) else {
            throw Vips.lastError(or: "resample failed")
        }
        return VipsImageRef(result)
    }

    /// This opaque 8-bit image with its alpha band dropped (RGBA to RGB, `adding` false) or an
    /// opaque one added (RGB to RGBA): lazily, region by region when read. The alpha dropped
    /// must be opaque: adding it back (or `addingOpaqueAlpha()`, `renderRGBA()`) gives the
    /// image it was dropped from, as it was.
    public func alphaBand(adding: Bool) throws(VipsError) -> VipsImageRef {
        if adding, let convertedFrom, convertedFrom.kind == .droppedOpaqueAlpha { return convertedFrom.image }
        guard let result = wi_alpha_band_lazy(pointer, adding ? 1 : 0) else {
            throw Vips.lastError(or: "alpha band conversion failed")
        }
        return VipsImageRef(result, convertedFrom: adding ? nil : Conversion(kind: .droppedOpaqueAlpha, image: self))
    }

    /// This 8-bit RGBA image with its colours multiplied by alpha, in 8 bits, lazily (an opaque
    /// 8-bit RGB image gains an opaque alpha band and is otherwise unchanged). When this image
    /// was made from premultiplied pixels (`unpremultipliedEightBit()`, `keeping(premultiplied:)`),
    /// those, without the rounding of a round trip (they differ from premultiplying this image
    /// by at most a level).
    public func premultipliedEightBit() throws(VipsError) -> VipsImageRef {
        if let convertedFrom, convertedFrom.kind == .unpremultiplied { return convertedFrom.image }
        guard hasAlpha else { return try addingOpaqueAlpha() }
        guard let result = wi_alpha_weight_lazy(pointer, 1) else { throw Vips.lastError(or: "premultiply failed") }
        return VipsImageRef(result)
    }

    /// This 8-bit premultiplied RGBA image with its colours divided by alpha, lazily; it keeps
    /// this image for `premultipliedEightBit()`.
    public func unpremultipliedEightBit() throws(VipsError) -> VipsImageRef {
        guard let result = wi_alpha_weight_lazy(pointer, 0) else { throw Vips.lastError(or: "unpremultiply failed") }
        return VipsImageRef(result, convertedFrom: Conversion(kind: .unpremultiplied, image: self))
    }

    /// This 8-bit RGBA image with its alpha scaled as `PixelBuffer.roundingCorners(radius:corners:)`
    /// scales a bitmap's: lazily, computed region by region when read. With `premultiplied`,
    /// the image is 8-bit premultiplied and its colours are scaled too.
    public func roundingCorners(radius: Double, corners: UInt, premultiplied: Bool = false) throws(VipsError) -> VipsImageRef {
        guard let result = wi_round_corners_lazy(pointer, radius, UInt32(truncatingIfNeeded: corners), premultiplied ? 1 : 0) else {
            throw Vips.lastError(or: "round corners failed")
        }
        return VipsImageRef(result)
    }

    /// Runs a one-input libvips operation whose input argument is named `input` rather than
    /// "in" (zoom, smartcrop), e.g. `call("zoom", input: "input", "xfac=2,yfac=2")`.
    package func call(_ operation: String, input: String, _ options: String = "") throws(VipsError) -> VipsImageRef {
        guard let result = wi_call_named(operation, input, pointer, options) else {
            throw Vips.lastError(or: "\(operation) failed")
        }
        return VipsImageRef(result)
    }

    /// Runs a two-input libvips operation with this image as the argument `names.0` and `other`
    /// as `names.1`, e.g. `call("composite2", with: tint, names: ("base", "overlay"), "mode=over")`.
    package func call(
        _ operation: String, with other: VipsImageRef, names: (String, String), _ options: String = ""
    ) throws(VipsError) -> VipsImageRef {
        let result = withExtendedLifetime(other) { wi_call2(operation, names.0, pointer, names.1, other.pointer, options) }
        guard let result else { throw Vips.lastError(or: "\(operation) failed") }
        return VipsImageRef(result)
    }
}

extension Vips {
    /// True when `operation` is a libvips operation from one image to another that touches no
    /// file (not a loader or saver): one a caller may name in a filter.
    public static func isImageFilter(_ operation: String) -> Bool {
        (try? start()) != nil && wi_is_image_filter(operation) != 0
    }
}

extension PixelBuffer {
    /// This RGBA bitmap with the alpha scaled by the coverage of `roundedRectangle(width:height:
    /// radius:corners:ringWidth:colour:)`'s shape without a ring, as multiplying by that
    /// bitmap does; only the corner pixels are computed.
    public func roundingCorners(radius: Double, corners: UInt) -> PixelBuffer? {
        guard bands == 4 else { return nil }
        return PixelBuffer(width: width, height: height, bands: 4, writingEveryByte: { output in
            wi_round_corners_rgba8(
                baseAddress.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), radius,
                UInt32(truncatingIfNeeded: corners), output.assumingMemoryBound(to: UInt8.self)
            )
        })
    }

    /// An RGBA8 bitmap of `colour` (red, green, blue, alpha) whose alpha follows a `width` x
    /// `height` rectangle with `corners` (bits: 1 top-left, 2 top-right, 4 bottom-left,
    /// 8 bottom-right) rounded by `radius` pixels, edges antialiased. With `ringWidth` > 0,
    /// only the ring that wide inside the shape's edge is covered: a border. With `area`, only
    /// that part of the bitmap (which must lie inside it).
    public static func roundedRectangle(
        width: Int, height: Int, radius: Double, corners: UInt, ringWidth: Double, colour: [UInt8],
        area: (x: Int, y: Int, width: Int, height: Int)? = nil
    ) -> PixelBuffer {
        let rgba = (colour + [0, 0, 0, 0]).prefix(4).map { $0 }
        let area = area ?? (0, 0, width, height)
        return PixelBuffer(width: area.width, height: area.height, bands: 4) { output in
            guard let base = output.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            wi_rounded_rect_area_rgba8(
                Int32(width), Int32(height), radius, UInt32(truncatingIfNeeded: corners), ringWidth, rgba,
                Int32(area.x), Int32(area.y), Int32(area.width), Int32(area.height), base
            )
        }
    }
}
