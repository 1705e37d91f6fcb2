import LibVips

/// How to produce an image's pixels with libvips, without producing them: a source (a loader
/// on the encoded bytes, or a bitmap) followed by steps. Each `build()` makes a fresh libvips
/// pipeline, so a lazy image can be encoded, thumbnailed or rendered any number of times even
/// though a sequential loader can be read only once.
///
/// Every pipeline yields upright 8-bit sRGB with 3 or 4 bands (alpha last).
struct ImagePipeline: Sendable {
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

    /// A pipeline over pixels already in memory.
    static func bitmap(_ pixels: PixelBuffer) -> ImagePipeline {
        ImagePipeline { () throws(VipsError) in try VipsImageRef.wrapping(pixels) }
    }

    /// This pipeline followed by `step`.
    func appending(_ step: @escaping Step) -> ImagePipeline {
        ImagePipeline(source: source, steps: steps + [step])
    }

    /// A new libvips pipeline for this recipe; nothing is decoded until it is read.
    func build() throws(VipsError) -> VipsImageRef {
        var image = try source()
        for step in steps {
            image = try step(image)
        }
        return image
    }
}
