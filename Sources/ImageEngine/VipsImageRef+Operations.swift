import CLibvips

/// libvips' operations that the library runs, with Swift signatures: the operation names and
/// their option strings stay inside this target. Each returns a new lazy image.
extension VipsImageRef {
    /// A band format an image is cast to.
    public enum BandFormat: String, Sendable {
        /// 8 bits unsigned.
        case uchar
        /// 16 bits unsigned.
        case ushort
        /// 32-bit floating point.
        case float
    }

    /// How a thumbnail may be sized: libvips' `size`.
    public enum ThumbnailSizing: String, Sendable {
        /// Only ever smaller, the aspect ratio kept.
        case down
        /// Exactly the size asked for, the aspect ratio not kept.
        case force
    }

    /// An axis to flip along.
    public enum FlipDirection: String, Sendable {
        /// Left and right swapped.
        case horizontal
        /// Top and bottom swapped.
        case vertical
    }

    /// This image with its samples cast to `format` (values clipped, not scaled).
    public func cast(to format: BandFormat) throws(VipsError) -> VipsImageRef {
        try call("cast", "format=\(format.rawValue)")
    }

    /// This image cast to 8 bits when it is not (libvips' colour operations may widen it).
    public func eightBit() throws(VipsError) -> VipsImageRef {
        try isEightBit ? self : cast(to: .uchar)
    }

    /// This image resized by libvips (Lanczos-3) by `horizontalScale` and `verticalScale`.
    public func resized(horizontalScale: Double, verticalScale: Double) throws(VipsError) -> VipsImageRef {
        try call("resize", "scale=\(horizontalScale),vscale=\(verticalScale)")
    }

    /// This image blurred by a Gaussian of standard deviation `sigma` pixels.
    public func gaussianBlur(sigma: Double) throws(VipsError) -> VipsImageRef {
        try call("gaussblur", "sigma=\(sigma)")
    }

    /// This image sharpened (libvips' unsharp mask on lightness) with a Gaussian of `sigma` pixels.
    public func sharpened(sigma: Double) throws(VipsError) -> VipsImageRef {
        try call("sharpen", "sigma=\(sigma)")
    }

    /// This image turned clockwise by `quarterTurns` quarter turns (taken modulo 4): pixels
    /// moved, none interpolated.
    public func rotated(quarterTurns: Int) throws(VipsError) -> VipsImageRef {
        let turn = ((quarterTurns % 4) + 4) % 4
        return turn == 0 ? self : try call("rot", "angle=d\(turn * 90)")
    }

    /// This image rotated by `degrees` (clockwise), interpolated, on a canvas that holds it
    /// whole, the corners uncovered filled with `background` (one value a band).
    public func rotated(degrees: Double, background: [Double]) throws(VipsError) -> VipsImageRef {
        try call("rotate", "angle=\(degrees),background=\(Self.bandValues(background))")
    }

    /// This image flipped along `direction`.
    public func flipped(_ direction: FlipDirection) throws(VipsError) -> VipsImageRef {
        try call("flip", "direction=\(direction.rawValue)")
    }

    /// This image centred on a `width` x `height` canvas of `background` (cut when larger).
    public func centred(width: Int, height: Int, background: [Double]) throws(VipsError) -> VipsImageRef {
        try call("gravity", "direction=centre,width=\(width),height=\(height),extend=background,background=\(Self.bandValues(background))")
    }

    /// This image at (`x`, `y`) on a `width` x `height` canvas whose new pixels mirror the image.
    public func embeddedMirroring(x: Int, y: Int, width: Int, height: Int) throws(VipsError) -> VipsImageRef {
        try call("embed", "x=\(x),y=\(y),width=\(width),height=\(height),extend=mirror")
    }

    /// This image at (`x`, `y`) on a `width` x `height` canvas of `background` (one value a band).
    public func embedded(x: Int, y: Int, width: Int, height: Int, background: [Double]) throws(VipsError) -> VipsImageRef {
        try call("embed", "x=\(x),y=\(y),width=\(width),height=\(height),extend=background,background=\(Self.bandValues(background))")
    }

    /// This image shrunk by whole factors, each output pixel the mean of a block.
    public func shrunk(horizontal: Int, vertical: Int) throws(VipsError) -> VipsImageRef {
        try call("shrink", "hshrink=\(horizontal),vshrink=\(vertical)")
    }

    /// This image zoomed by whole factors, each pixel repeated into a block.
    public func zoomed(horizontal: Int, vertical: Int) throws(VipsError) -> VipsImageRef {
        try call("zoom", input: "input", "xfac=\(horizontal),yfac=\(vertical)")
    }

    /// This image with `image` put over it at (`x`, `y`).
    public func inserting(_ image: VipsImageRef, x: Int, y: Int) throws(VipsError) -> VipsImageRef {
        try call("insert", with: image, names: ("main", "sub"), "x=\(x),y=\(y)")
    }

    /// `count` bands of this image from band `first`.
    public func extractingBands(from first: Int, count: Int) throws(VipsError) -> VipsImageRef {
        try call("extract_band", "band=\(first),n=\(count)")
    }

    /// A thumbnail of this image that fits `width` x `height` (libvips' `thumbnail_image`).
    public func thumbnail(width: Int, height: Int, sizing: ThumbnailSizing) throws(VipsError) -> VipsImageRef {
        try call("thumbnail_image", "width=\(width),height=\(height),size=\(sizing.rawValue)")
    }

    /// This image held whole in memory once first read, for random access to a sequential
    /// load: one tile of the whole image, computed by the thread that first asks (within the
    /// time budget of a budgeted image below), where a random-access load would decode in
    /// libvips' workers, out of any budget's sight.
    public func heldWhole() throws(VipsError) -> VipsImageRef {
        try call("tilecache", "tile_width=\(width),tile_height=\(height),max_tiles=1,access=random,threaded=true")
    }

    /// This image with the tiles it computes kept (libvips' `tilecache` with its defaults, up
    /// to 1000 tiles of 128 x 128, shared by the threads that read it): a pipeline that reads
    /// the same pixels twice computes them once while they are held.
    public func cachingTiles() throws(VipsError) -> VipsImageRef {
        try call("tilecache", "threaded=true")
    }

    /// This image turned upright by its EXIF orientation (which is then 1).
    public func autorotated() throws(VipsError) -> VipsImageRef {
        try call("autorot")
    }

    /// This image's colours multiplied by alpha, in floating point.
    public func premultiplied() throws(VipsError) -> VipsImageRef {
        try call("premultiply")
    }

    /// This premultiplied image's colours divided by alpha, in floating point.
    public func unpremultiplied() throws(VipsError) -> VipsImageRef {
        try call("unpremultiply")
    }

    /// This image converted to 8-bit sRGB through its embedded profile (or libvips' default
    /// one for its space).
    public func iccTransformedToSRGB() throws(VipsError) -> VipsImageRef {
        try call("icc_transform", "output_profile=srgb,embedded=true,depth=8")
    }

    /// This image in the sRGB colour space (grey and other spaces converted).
    public func inSRGBSpace() throws(VipsError) -> VipsImageRef {
        try inColourSpace(.srgb)
    }

    /// This image with each band `band * multipliers[i] + addends[i]` (one value a band).
    public func linear(multipliers: [Double], addends: [Double]) throws(VipsError) -> VipsImageRef {
        try call("linear", "a=\(Self.bandValues(multipliers)),b=\(Self.bandValues(addends))")
    }

    /// This image's bands mixed by `rows` (output band i the sum of input band j times
    /// `rows[i][j]`; libvips' recomb), as a 3x3 matrix converts linear RGB between primaries.
    public func recombined(by rows: [[Double]]) throws(VipsError) -> VipsImageRef {
        let values = rows.flatMap { $0 }
        guard let columns = rows.first?.count, columns > 0, values.count == columns * rows.count,
              let matrix = values.withUnsafeBufferPointer({
                  vips_image_new_matrix_from_array(Int32(columns), Int32(rows.count), $0.baseAddress, Int32($0.count))
              })
        else { throw Vips.lastError(or: "cannot make a \(rows.count)-row matrix") }
        return try call("recomb", with: VipsImageRef(matrix), names: ("in", "m"))
    }

    /// `values` as libvips reads an array option: whole numbers without a fraction.
    static func bandValues(_ values: [Double]) -> String {
        values.map { $0 == $0.rounded() && abs($0) < 1e15 ? String(Int($0)) : String($0) }.joined(separator: " ")
    }
}
