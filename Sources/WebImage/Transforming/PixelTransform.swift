internal import ImageEngine

/// What a built-in transformer does to the pixels of one still image: a libvips step, and
/// optionally the same work done on a decoded bitmap without libvips.
struct PixelTransform: Sendable {
    typealias Step = @Sendable (_ image: VipsImageRef, _ scale: Double) throws(VipsError) -> VipsImageRef
    typealias BitmapWork = @Sendable (_ pixels: PixelBuffer, _ hasAlpha: Bool, _ scale: Double) -> PixelBuffer?
    typealias SixteenBitStep = @Sendable (_ image: VipsImageRef, _ scale: Double, _ encoding: ColourEncoding?) throws(VipsError) -> VipsImageRef

    /// Runs on upright 8-bit sRGB with 3 or 4 bands (alpha last); `scale` turns the
    /// transformer's points into pixels. Throws when the transform cannot apply.
    let step: Step
    /// The transform of an RGBA8 bitmap, or nil when this input is not one it handles (`step`
    /// then runs on the bitmap).
    let bitmap: BitmapWork?
    /// True when `step` only moves pixels (crops, flips, quarter turns): on a decoded image it
    /// then runs on the RGBA bitmap as it is, alpha band or not, rendered in this thread.
    let movesPixelsOnly: Bool
    /// True when `step` first gives the image an alpha band (opaque when it had none): on an
    /// opaque decoded image it then runs on the RGBA bitmap as it is, and `bitmap`'s result
    /// has alpha.
    let addsAlpha: Bool
    /// The same transform of an HDR image's samples (`Image.highBitDepth`): 16-bit RGB or RGBA
    /// (`rgb16`, full signal and opaque alpha at 65535) in the source's colour `encoding` (nil:
    /// as the file holds them), to 16 bits again. Nil: the result keeps only the SDR pixels.
    /// A step that only moves pixels works on any samples and is its own.
    let sixteenBit: SixteenBitStep?

    init(
        bitmap: BitmapWork? = nil, movesPixelsOnly: Bool = false, addsAlpha: Bool = false,
        sixteenBit: SixteenBitStep? = nil, step: @escaping Step
    ) {
        self.step = step
        self.bitmap = bitmap
        self.movesPixelsOnly = movesPixelsOnly
        self.addsAlpha = addsAlpha
        if let sixteenBit {
            self.sixteenBit = sixteenBit
        } else if movesPixelsOnly {
            self.sixteenBit = { @Sendable image, scale, _ throws(VipsError) in try step(image, scale) }
        } else {
            self.sixteenBit = nil
        }
    }
}
