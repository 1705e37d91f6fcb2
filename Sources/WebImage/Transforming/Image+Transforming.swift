import Foundation
internal import ImageEngine

extension Image {
    /// This image transformed by `transform`, every frame of an animation.
    func transformed(by transform: PixelTransform) -> Image? {
        mappingFrames { frame in frame.applyingToStill(transform) }
    }

    /// `transform` applied to every frame: to this image when it is still; to the first frame
    /// now and to the others when asked for, when it is animated, keeping the frame durations
    /// and the loop count. Nil when the first frame's transform is nil; `transform` must give
    /// frames of one size (a later frame of another size reads as nil). The result keeps no
    /// `animatedImageData`: its frames are no longer the original file's.
    public func mappingFrames(_ transform: @escaping @Sendable (Image) -> Image?) -> Image? {
        guard isAnimated, let provider = animatedImageProvider else { return transform(self) }
        guard let still = frame(at: 0), let first = transform(still)?.frame(at: 0) else { return nil }
        return Image(sharing: first, animatedImageProvider: MappedFramesProvider(source: provider, first: first, transform: transform))
    }

    /// A still image (or one frame) through `transform`: a decoded image gives a decoded one,
    /// a lazy image a lazy one with one step more.
    private func applyingToStill(_ transform: PixelTransform) -> Image? {
        let scale = scale
        // An opaque image whose pipeline yields RGBA (TurboJPEG's bitmaps) is handed to the step
        // without that band, as decoded pixels are below: the step sees it opaque, and so does
        // the result.
        let dropsOpaqueAlpha = !hasAlpha && !transform.addsAlpha
        // An HDR image's samples go through the transform's 16-bit step, when it has one: the
        // result stays HDR, with the source's colour.
        let highBitDepth = highBitDepth.flatMap { source in transform.sixteenBit.map { source.transformed(by: $0, scale: scale) } }
        var sdr = ImageColorInfo.sRGB
        sdr.isGrey = colorInfo.isGrey  // the encoder checks that the pixels still are
        let colour = (colorInfo: highBitDepth == nil ? sdr : colorInfo, highBitDepth: highBitDepth)
        let step: ImageRecipe.Step = { image throws(VipsError) in
            let input = try image.normalizedToSRGB()
            return try transform.step(dropsOpaqueAlpha && input.bands == 4 ? input.alphaBand(adding: false) : input, scale)
        }
        do {
            guard isDecoded else {
                let built = try step(makeVipsImage())
                guard Self.isWithinPixelLimit(built) else { return nil }
                return Image(
                    recipe: recipe.appending(step), pixels: nil, pendingBuild: built,
                    pixelWidth: built.width, pixelHeight: built.height, scale: scale, format: format,
                    hasAlpha: built.hasAlpha, sourceByteCount: sourceByteCount, metadata: metadata,
                    colorInfo: colour.colorInfo, highBitDepth: colour.highBitDepth
                )
            }
            let pixels = try renderedPixels()
            if let work = transform.bitmap, let result = work(pixels, hasAlpha, scale) {
                return Image(decoded: result, scale: scale, format: format, hasAlpha: hasAlpha || transform.addsAlpha, metadata: metadata, colour: colour)
            }
            var input = try VipsImageRef.wrapping(pixels)
            if transform.movesPixelsOnly {
                // No pixel is computed: the RGBA pixels are moved as they are, alpha band or not.
                return Image(
                    decoded: try transform.step(input, scale).render(), scale: scale, format: format, hasAlpha: hasAlpha, metadata: metadata,
                    colour: colour
                )
            }
            // Decoded pixels are RGBA even when opaque: without that band, steps see the image as
            // opaque (dropped here and added back by `renderRGBA`, region by region as the
            // pixels are computed: cheaper than libvips' extract_band and bandjoin, and than a
            // pass and a buffer of their own).
            if !hasAlpha && !transform.addsAlpha { input = try input.alphaBand(adding: false) }
            let output = try step(input).normalizedToSRGB()
            guard Self.isWithinPixelLimit(output) else { return nil }
            return Image(
                decoded: try output.renderRGBA(), scale: scale, format: format, hasAlpha: output.hasAlpha, metadata: metadata, colour: colour
            )
        } catch {
            return nil
        }
    }

    /// A transform may make an image larger (a resize, a rotation that fits): results past the
    /// decoders' default limit (100 megapixels) are refused before any pixel is made, so that a
    /// caller's size never turns into a huge allocation.
    private static func isWithinPixelLimit(_ image: VipsImageRef) -> Bool {
        let pixels = image.width.multipliedReportingOverflow(by: image.height)
        return !pixels.overflow && pixels.partialValue <= ImageCoderOptions.defaultMaxPixelCount
    }

    /// An image over RGBA8 pixels already decoded, with the HDR samples `colour` gives.
    private convenience init(
        decoded pixels: PixelBuffer, scale: Double, format: ImageFormat, hasAlpha: Bool, metadata: ImageMetadata,
        colour: (colorInfo: ImageColorInfo, highBitDepth: HighBitDepthSource?)
    ) {
        self.init(
            recipe: .bitmap(pixels), pixels: pixels, pixelWidth: pixels.width, pixelHeight: pixels.height,
            scale: scale, format: format, hasAlpha: hasAlpha, metadata: metadata, colorInfo: colour.colorInfo,
            highBitDepth: colour.highBitDepth
        )
    }
}

extension HighBitDepthSource {
    /// These samples through a transformer's 16-bit `step` (run on them at full signal 65535,
    /// as `rgb16`, so that libvips' compositing and premultiplying take 65535 as opaque).
    func transformed(by step: @escaping PixelTransform.SixteenBitStep, scale: Double) -> HighBitDepthSource {
        let (build, signalMax, encoding) = (build, signalMax, encoding)
        return HighBitDepthSource(
            build: { () throws(VipsError) in
                let samples = try build().sixteenBitNormalized(signalMax: signalMax).withInterpretation(.rgb16)
                return try step(samples, scale, encoding).cast(to: .ushort)
            },
            signalMax: 65535, encoding: encoding
        )
    }
}
