import CLibvips
import CVipsGlue
import Foundation

/// An owned reference to a libvips image: a lazy pipeline or pixels in memory.
///
/// `@unchecked Sendable`: a libvips image is immutable once built (we set metadata only on
/// fresh copies, before they are shared), and libvips evaluates one image from several
/// threads at once; the reference count is atomic. The Swift properties are constants.
public final class VipsImageRef: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<VipsImage>
    /// The bitmap this image wraps as it is, if it does: rendering it is then free.
    private let wrappedPixels: PixelBuffer?
    /// The image this one was converted from, kept so that a later step converting back takes
    /// it instead of adding an operation (and a pass) that undoes the first.
    let convertedFrom: Conversion?

    /// A per-pixel conversion that a later step may want undone.
    struct Conversion {
        enum Kind {
            /// This image is `image` without its opaque alpha band.
            case droppedOpaqueAlpha
            /// This image is `image` (8-bit premultiplied) with its colours divided by alpha, or
            /// was made alongside it (`keeping(premultiplied:)`): the same within a level.
            case unpremultiplied
        }

        let kind: Kind
        let image: VipsImageRef
    }

    init(_ pointer: UnsafeMutablePointer<VipsImage>, wrapping pixels: PixelBuffer? = nil, convertedFrom: Conversion? = nil) {
        self.pointer = pointer
        self.wrappedPixels = pixels
        self.convertedFrom = convertedFrom
    }

    deinit {
        g_object_unref(pointer)
    }

    // MARK: Making images

    /// Runs a libvips loader (such as "jpegload_buffer" or "thumbnail_buffer") on a copy of `data`.
    /// Loading is lazy: only the header is read until pixels are asked for.
    /// `loaderOptions` are the options a loader-running operation such as "thumbnail_buffer"
    /// passes on to the loader it picks (its `option_string`).
    public static func load(
        _ loader: String, data: Data, options: String = "", loaderOptions: String? = nil
    ) throws(VipsError) -> VipsImageRef {
        try Vips.start()
        let result = data.withUnsafeBytes { bytes in
            wi_load_buffer(loader, bytes.baseAddress, bytes.count, options, loaderOptions)
        }
        guard let result else { throw Vips.lastError(or: "\(loader) failed") }
        return VipsImageRef(result)
    }

    /// Wraps an 8-bit bitmap (1 to 4 bands) without copying it. The libvips image holds a
    /// reference to `pixels`, so every image computed from it keeps them alive. `orientation`
    /// (EXIF 1...8) is recorded for `autorot`.
    public static func wrapping(_ pixels: PixelBuffer, orientation: Int = 1) throws(VipsError) -> VipsImageRef {
        try Vips.start()
        let owner = Unmanaged.passRetained(pixels).toOpaque()
        guard let result = wi_image_from_memory(
            pixels.baseAddress, pixels.count, Int32(pixels.width), Int32(pixels.height), Int32(pixels.bands),
            owner, { Unmanaged<PixelBuffer>.fromOpaque($0!).release() }
        ) else { throw Vips.lastError(or: "cannot wrap pixels") }
        if orientation != 1 {
            // A fresh image nobody else sees yet: setting metadata on it is safe.
            vips_image_set_int(result, "orientation", Int32(orientation))
            return VipsImageRef(result)
        }
        return VipsImageRef(result, wrapping: pixels)
    }

    /// An 8-bit image of `width` x `height` whose pixels are never computed, with an EXIF
    /// `orientation`: run operations on it to learn the size they would give, from headers only.
    public static func placeholder(width: Int, height: Int, bands: Int, orientation: Int = 1) throws(VipsError) -> VipsImageRef {
        try Vips.start()
        guard let result = wi_placeholder(Int32(width), Int32(height), Int32(bands)) else {
            throw Vips.lastError(or: "cannot make a placeholder image")
        }
        // A fresh image nobody else sees yet: setting metadata on it is safe.
        if orientation != 1 { vips_image_set_int(result, "orientation", Int32(orientation)) }
        return VipsImageRef(result)
    }

    /// `text` drawn in `font` (a Pango font description such as "sans 12", sizes in pixels):
    /// a one-band 8-bit image of how much each pixel is covered by the glyphs (0 to 255), as
    /// large as the text's ink. For labels painted with `linear` and `inserting`.
    public static func text(_ text: String, font: String) throws(VipsError) -> VipsImageRef {
        try Vips.start()
        guard let result = wi_text(text, font) else { throw Vips.lastError(or: "cannot render the text") }
        return VipsImageRef(result)
    }

    /// Stacks equally sized frames top to bottom, the layout libvips uses for animation.
    public static func joinVertically(_ frames: [VipsImageRef]) throws(VipsError) -> VipsImageRef {
        var pointers: [UnsafeMutablePointer<VipsImage>?] = frames.map(\.pointer)
        let result = withExtendedLifetime(frames) {
            pointers.withUnsafeMutableBufferPointer { wi_join_vertically($0.baseAddress, Int32($0.count)) }
        }
        guard let result else { throw Vips.lastError(or: "arrayjoin failed") }
        return VipsImageRef(result)
    }

    // MARK: Operations

    /// Runs a one-input libvips operation (`in` to `out`) with arguments in libvips' string form,
    /// e.g. `call("resize", "scale=0.5")`.
    package func call(_ operation: String, _ options: String = "") throws(VipsError) -> VipsImageRef {
        guard let result = wi_call(operation, pointer, options) else {
            throw Vips.lastError(or: "\(operation) failed")
        }
        return VipsImageRef(result)
    }

    /// Blends alpha away onto an RGB background (components 0...255).
    public func flattened(red: Double, green: Double, blue: Double) throws(VipsError) -> VipsImageRef {
        guard let result = wi_flatten(pointer, red, green, blue) else { throw Vips.lastError(or: "flatten failed") }
        return VipsImageRef(result)
    }

    /// This image, with `premultiplied` (its pixels 8-bit premultiplied, made alongside it) to
    /// be given by `premultipliedEightBit()`.
    public func keeping(premultiplied: VipsImageRef) -> VipsImageRef {
        g_object_ref(pointer)
        return VipsImageRef(pointer, wrapping: wrappedPixels, convertedFrom: Conversion(kind: .unpremultiplied, image: premultiplied))
    }

    /// This image with an alpha band (opaque when it had none).
    public func withAlpha() throws(VipsError) -> VipsImageRef {
        hasAlpha ? self : try addingOpaqueAlpha()
    }

    /// This 16-bit image with an alpha band (opaque, 65535, when it had none).
    public func withSixteenBitAlpha() throws(VipsError) -> VipsImageRef {
        if hasAlpha { return self }
        guard let result = wi_add_constant_band(pointer, 65535) else { throw Vips.lastError(or: "bandjoin failed") }
        return VipsImageRef(result)
    }

    /// Appends an opaque alpha band: the image this one was made from by dropping it, if it was
    /// (`alphaBand(adding:)`, which makes 8-bit RGB images' band).
    public func addingOpaqueAlpha() throws(VipsError) -> VipsImageRef {
        if isEightBit, bands == 3 { return try alphaBand(adding: true) }
        guard let result = wi_add_constant_band(pointer, 255) else { throw Vips.lastError(or: "bandjoin failed") }
        return VipsImageRef(result)
    }

    /// A copy carrying animation metadata: frame height, per-frame delays in ms, loop count.
    public func withAnimation(pageHeight: Int, delays: [Int], loop: Int) throws(VipsError) -> VipsImageRef {
        let values = delays.map { Int32(clamping: $0) }
        let result = values.withUnsafeBufferPointer {
            // Clamped: callers pass loop counts read from files (an APNG's is 32-bit unsigned).
            wi_with_animation(pointer, Int32(clamping: pageHeight), $0.baseAddress, Int32(clamping: $0.count), Int32(clamping: loop))
        }
        guard let result else { throw Vips.lastError(or: "copy failed") }
        return VipsImageRef(result)
    }

    /// Runs a saver such as "jpegsave_buffer" and returns the encoded bytes.
    public func save(_ saver: String, options: String = "") throws(VipsError) -> Data {
        guard let blob = wi_save_buffer(saver, pointer, options) else {
            throw Vips.lastError(or: "\(saver) failed")
        }
        return Self.data(of: blob)
    }

    /// This animation strip (`pageHeight` frames, with its delays and loop count) as an
    /// animated WebP at `quality` (1...100), libwebp's `effort` (0...6) and `preset` (libvips'
    /// webpsave number: 0 default, 1 picture, 2 photo, 3 drawing, 4 icon, 5 text), with its ICC
    /// profile, EXIF and XMP when `keepsMetadata`. Encoded with libwebp directly: libvips 8.14's
    /// saver keeps its encoder after a save that fails midway, as one stopped by a frame's decode
    /// budget does.
    public func savedAsAnimatedWebP(quality: Int, effort: Int = 4, preset: Int = 0, keepsMetadata: Bool) throws(VipsError) -> Data {
        guard let blob = wi_webp_save_animation(
            pointer, Int32(clamping: quality), Int32(clamping: effort), Int32(clamping: preset), keepsMetadata ? 1 : 0
        ) else {
            throw Vips.lastError(or: "the animated WebP save failed")
        }
        return Self.data(of: blob)
    }

    /// A copy of a blob's bytes; the blob is released.
    private static func data(of blob: UnsafeMutablePointer<VipsBlob>) -> Data {
        defer { vips_area_unref(UnsafeMutableRawPointer(blob).assumingMemoryBound(to: VipsArea.self)) }
        var length = 0
        guard let bytes = vips_blob_get(blob, &length), length > 0 else { return Data() }
        return Data(bytes: bytes, count: length)
    }

    /// Evaluates the pipeline into a bitmap (the wrapped one, when this image is a bitmap as is).
    /// Like every render here, it runs in the calling thread: see `renderedCopy()`.
    public func render() throws(VipsError) -> PixelBuffer {
        if let wrappedPixels { return wrappedPixels }
        return try renderedCopy()
    }

    /// Evaluates an 8-bit RGB or RGBA pipeline into an RGBA bitmap (the wrapped one, when this
    /// image is one as is): an opaque alpha is added to RGB as the pixels are made, or the RGBA
    /// image this one was made from by dropping its alpha is rendered instead.
    public func renderRGBA() throws(VipsError) -> PixelBuffer {
        if let wrappedPixels, wrappedPixels.bands == 4 { return wrappedPixels }
        if let convertedFrom, convertedFrom.kind == .droppedOpaqueAlpha { return try convertedFrom.image.renderRGBA() }
        var length = 0
        guard let memory = wi_render_rgba8(pointer, &length) else {
            throw Vips.lastError(or: "cannot compute pixels")
        }
        return PixelBuffer(adopting: memory, count: length, width: width, height: height, bands: 4)
    }

    /// Evaluates the pipeline into a new bitmap that nobody else holds, in the calling thread,
    /// tile by tile: libvips runs one worker per pipeline here (`Vips.start()`), and handing it
    /// each tile costs more than cheap work on small images.
    private func renderedCopy() throws(VipsError) -> PixelBuffer {
        var length = 0
        guard let memory = wi_render(pointer, &length) else {
            throw Vips.lastError(or: "cannot compute pixels")
        }
        return PixelBuffer(adopting: memory, count: length, width: width, height: height, bands: bands)
    }

    /// Evaluates an 8-bit RGB or RGBA pipeline into a bitmap converted from `profile` to sRGB
    /// with a conversion built once per profile and reused (libvips' `icc_transform` builds one
    /// per call). Nil, with nothing read, when `profile` is not a usable RGB profile: a
    /// sequential source can then still be read by another route.
    public func renderedInSRGB(from profile: Data) throws(VipsError) -> PixelBuffer? {
        guard isEightBit, bands == 3 || bands == 4, ColourConversion.supports(profile, bands: bands) else { return nil }
        // Converted in place: it must be a bitmap nobody else holds.
        let pixels = try renderedCopy()
        do { try pixels.convertToSRGB(from: profile, opaque: false) } catch { return nil }
        return pixels
    }

    // MARK: Header fields (read without decoding pixels)

    public var width: Int { Int(vips_image_get_width(pointer)) }
    public var height: Int { Int(vips_image_get_height(pointer)) }
    public var bands: Int { Int(vips_image_get_bands(pointer)) }
    /// Bytes a pixel takes: bands times the size of a sample (1 for 8-bit, 2 for 16-bit, 4 for float).
    public var bytesPerPixel: Int { bands * Int(vips_format_sizeof(vips_image_get_format(pointer))) }
    public var hasAlpha: Bool { vips_image_hasalpha(pointer) != 0 }
    public var hasICCProfile: Bool { wi_has_icc(pointer) != 0 }
    /// True for 8-bit unsigned samples.
    public var isEightBit: Bool { vips_image_get_format(pointer) == VIPS_FORMAT_UCHAR }
    /// True when the pixels are already sRGB (or grey, which maps to sRGB without a profile).
    public var isSRGB: Bool { vips_image_get_interpretation(pointer) == VIPS_INTERPRETATION_sRGB }
    public var isCMYK: Bool { vips_image_get_interpretation(pointer) == VIPS_INTERPRETATION_CMYK }
    /// The height of one frame of an animation laid out top to bottom (the whole height if not).
    public var pageHeight: Int { Int(vips_image_get_page_height(pointer)) }
    /// Frames (or pages) in the source file, whatever was loaded.
    public var pageCount: Int { Int(wi_get_int(pointer, "n-pages", 1)) }
    /// EXIF orientation 1...8 (1 when absent).
    public var orientation: Int { Int(wi_get_int(pointer, "orientation", 1)) }
    /// Animation loop count (0 = forever), when the file stores one.
    public var loop: Int? {
        let value = wi_get_int(pointer, "loop", -1)
        return value < 0 ? nil : Int(value)
    }

    /// Per-frame delays in milliseconds, when the file stores them.
    public var delays: [Int] {
        let capacity = max(1, pageCount)
        var values = [Int32](repeating: 0, count: capacity)
        let count = values.withUnsafeMutableBufferPointer {
            wi_get_int_array(pointer, "delay", $0.baseAddress, Int32(capacity))
        }
        return values.prefix(Int(count)).map(Int.init)
    }

    /// The embedded ICC profile, if any.
    public var iccProfile: Data? { blob(named: "icc-profile-data") }
}
