internal import ImageEngine

/// How to produce an image's pixels with libvips, without producing them: a source (a loader
/// on the encoded bytes, or a bitmap) followed by steps. Each `build()` makes a fresh libvips
/// pipeline, so a lazy image can be encoded, thumbnailed or rendered any number of times even
/// though a sequential loader can be read only once.
///
/// Every recipe yields upright 8-bit sRGB with 3 or 4 bands (alpha last): the conversion to
/// sRGB closes every build, after the steps, so that it runs on the fewest pixels and a
/// prepared recipe reads no pixels (a colour-profile conversion may render them).
struct ImageRecipe: Sendable {
    typealias Step = @Sendable (VipsImageRef) throws(VipsError) -> VipsImageRef

    private let source: @Sendable () throws(VipsError) -> VipsImageRef
    private let steps: [Step]

    init(source: @escaping @Sendable () throws(VipsError) -> VipsImageRef) {
        self.source = source
        self.steps = []
    }

    private init(source: @escaping @Sendable () throws(VipsError) -> VipsImageRef, steps: [Step]) {
        self.source = source
        self.steps = steps
    }

    /// A recipe over pixels already in memory.
    static func bitmap(_ pixels: PixelBuffer) -> ImageRecipe {
        ImageRecipe { () throws(VipsError) in try VipsImageRef.wrapping(pixels) }
    }

    /// This recipe followed by `step`.
    func appending(_ step: @escaping Step) -> ImageRecipe {
        ImageRecipe(source: source, steps: steps + [step])
    }

    /// A new libvips pipeline for this recipe, in 8-bit sRGB.
    func build() throws(VipsError) -> VipsImageRef {
        try prepare().normalizedToSRGB()
    }

    /// A new libvips pipeline for this recipe without the final conversion to sRGB: its size
    /// and alpha are the built image's, and nothing is decoded until it is read. Finish it with
    /// `normalizedToSRGB()`.
    func prepare() throws(VipsError) -> VipsImageRef {
        var image = try source()
        for step in steps {
            image = try step(image)
        }
        return image
    }
}
