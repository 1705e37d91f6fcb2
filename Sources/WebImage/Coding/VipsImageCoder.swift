import Foundation
internal import ImageEngine

/// The libvips coder: decodes JPEG, PNG, GIF, WebP, HEIC/HEIF, AVIF, TIFF, BMP, SVG, PDF and
/// JPEG XL; encodes JPEG, PNG, GIF, WebP, AVIF, HEIC/HEIF, TIFF and JPEG XL. Animated GIF and
/// WebP decode as their first frame plus a `VipsAnimatedImageCoder` giving the others on demand.
///
/// Each format goes to its own libvips loader, chosen from the sniffed magic bytes: libvips'
/// generic loader, which also tries risky loaders (ImageMagick for anything, MATLAB, ...), is
/// never used. ImageMagick sees BMP data only.
public final class VipsImageCoder: ThrowingImageCoder {
    /// The instance `ImageCodersManager.shared` holds.
    public static let shared = VipsImageCoder()

    /// A coder; it holds no state, so `shared` serves as well.
    public init() {}

    /// Formats this coder reads.
    public static let decodableFormats: Set<ImageFormat> = [
        .jpeg, .png, .gif, .webP, .heic, .heif, .avif, .tiff, .bmp, .svg, .pdf, .jxl,
    ]
    /// Formats this coder writes.
    public static let encodableFormats: Set<ImageFormat> = [
        .jpeg, .png, .gif, .webP, .heic, .heif, .avif, .tiff, .jxl,
    ]

    public func canDecode(from data: Data) -> Bool {
        Self.decodableFormats.contains(ImageFormat(sniffing: data))
    }

    public func canEncode(to format: ImageFormat) -> Bool {
        Self.encodableFormats.contains(format)
    }

    public func decode(_ data: Data, options: ImageCoderOptions) throws(ImageCodingError) -> Image {
        let started = WorkBudget.threadCPUTime
        guard !data.isEmpty else { throw .emptyData }
        let format = ImageFormat(sniffing: data)
        guard let loader = VipsLoader(format: format, embeddedThumbnail: options.decodeEmbeddedThumbnail) else {
            throw format == .undefined ? .unknownFormat : .unsupportedFormat(format)
        }
        let header = try loader.header(of: data, options: options)
        let plan = DecodePlan(header: header, options: options)
        var isolated = format == .pdf
        if format == .svg {
            let work = SVGWork(data)
            if let problem = work.excess(outputPixels: plan.maxPixelCount(header: header)) {
                throw .overLimit(format: .svg, reason: problem)
            }
            isolated = !work.rendersWithinBudget(outputPixels: plan.maxPixelCount(header: header))
        }
        // A large lossless WebP: libwebp decodes it in one call that nothing stops (100 MP from
        // 46 bytes: about 1.9 s of CPU here), so it decodes in the child process as a PDF does.
        if format == .webP, header.storedWidth * header.storedHeight > BitmapThumbnail.maxPixelCount,
           VipsLoader.isStillWebP(data), WebPFrames.isLossless(data) {
            isolated = true
        }
        if isolated, let renderer = IsolatedRenderer.standard {
            // The child has what is left of the budget once the header and the checks are read.
            let left = options.decodeTimeBudget.limit(for: plan) - (WorkBudget.threadCPUTime - started)
            return try Self.isolatedImage(
                data, format: format, call: loader.loadCall(plan: plan, frames: .still), renderer: renderer,
                budget: max(.milliseconds(1), left), options: options, hasAlpha: format == .webP ? header.hasAlpha : true
            )
        }
        let animated = header.pageCount > 1 && loader.isAnimatable && !options.decodeFirstFrameOnly
        let provider = animated
            ? VipsAnimatedImageCoder(data: data, loader: loader, header: header, plan: plan, options: options)
            : nil
        return try Self.image(
            from: loader.recipe(
                for: data, header: header, plan: plan, frames: animated ? .first : .still,
                budget: options.decodeTimeBudget.limit(for: plan), convertsColour: !animated
            ),
            format: format, options: options, provider: provider, sourceByteCount: data.count, metadata: header.metadata,
            colorInfo: options.decodeToHDR && header.gainMap != nil ? header.colorInfo.gainMapRendition : header.colorInfo,
            highBitDepth: animated ? nil : highBitDepth(data, loader: loader, header: header, options: options, budget: options.decodeTimeBudget.limit(for: plan))
        )
    }

    /// With `decodeToHDR`, how a still source of more than 8 bits, or a gain-map JPEG's HDR
    /// rendition, makes its samples at the 8-bit rendition's size.
    private func highBitDepth(
        _ data: Data, loader: VipsLoader, header: VipsHeader, options: ImageCoderOptions, budget: Duration
    ) -> ((_ width: Int, _ height: Int) -> HighBitDepthSource)? {
        guard options.decodeToHDR else { return nil }
        if let gainMap = header.gainMap {
            return { width, height in
                loader.gainMapSource(
                    for: data, gainMap: gainMap, header: header, width: width, height: height,
                    displayHeadroom: options.decodeHDRDisplayHeadroom, budget: budget
                )
            }
        }
        guard header.colorInfo.bitsPerComponent > 8 else { return nil }
        return { width, height in loader.highBitDepthSource(for: data, header: header, width: width, height: height, budget: budget) }
    }

    /// Prepares `recipe` once to learn the output size (header only), then renders it from
    /// that build, or keeps it lazy with that build handed to its first reader.
    static func image(
        from recipe: ImageRecipe, format: ImageFormat, options: ImageCoderOptions,
        provider: (any AnimatedImageProvider)?, sourceByteCount: Int, metadata: ImageMetadata,
        colorInfo: ImageColorInfo = .sRGB,
        highBitDepth: ((_ width: Int, _ height: Int) -> HighBitDepthSource)? = nil
    ) throws(ImageCodingError) -> Image {
        do {
            let (built, pixels) = try WorkBudget.attributingStops { () throws(VipsError) in
                let built = try recipe.prepare()
                return (built, options.decodeUseLazyDecoding ? nil : try built.normalizedToSRGB().renderRGBA())
            }
            return Image(
                recipe: pixels.map(ImageRecipe.bitmap) ?? recipe, pixels: pixels, pendingBuild: built,
                pixelWidth: built.width, pixelHeight: built.height, scale: options.decodeScaleFactor,
                format: format, hasAlpha: built.hasAlpha, isVector: format == .svg || format == .pdf,
                animatedImageProvider: provider, sourceByteCount: sourceByteCount, metadata: metadata, colorInfo: colorInfo,
                highBitDepth: highBitDepth?(built.width, built.height)
            )
        } catch {
            throw ImageCodingError(decoding: format, error)
        }
    }

    /// `data` loaded by `call` and rendered in a child process (`IsolatedRenderer`) that
    /// `budget` of CPU time ends: at once, lazy decoding or not (a PDF, a large SVG, a large
    /// lossless WebP).
    static func isolatedImage(
        _ data: Data, format: ImageFormat, call: LoadCall, renderer: IsolatedRenderer, budget: Duration, options: ImageCoderOptions,
        hasAlpha: Bool = true
    ) throws(ImageCodingError) -> Image {
        let pixels: PixelBuffer
        do {
            pixels = try renderer.render(call.operation, options: call.options, loaderOptions: call.loaderOptions, data: data, budget: budget)
        } catch {
            switch error {
            case .overBudget:
                throw .overLimit(format: format, reason: "stopped, its CPU time past its budget (decodeTimeBudget), in a child process")
            case .failed(let message):
                throw .corruptData(format: format, reason: message)
            }
        }
        return Image(
            recipe: .bitmap(pixels), pixels: pixels, pixelWidth: pixels.width, pixelHeight: pixels.height,
            scale: options.decodeScaleFactor, format: format, hasAlpha: hasAlpha, isVector: format == .svg || format == .pdf,
            sourceByteCount: data.count
        )
    }

    public func encode(_ image: Image, format: ImageFormat, options: ImageCoderOptions) throws(ImageCodingError) -> Data {
        if let highBitDepth = image.highBitDepth, HighBitDepthEncoding.applies(to: format, options: options) {
            return try HighBitDepthEncoding.encode(image, highBitDepth, format: format, options: options)
        }
        let kept = options.keptMetadata(of: image)
        guard let saver = VipsSaver(format: format, keepsMetadata: kept != nil, options: options) else { throw .unsupportedFormat(format) }
        return try ImageCodingError.catchingEncodeFailures(to: format, from: image.format) {
            let frames = try saver.frames(of: image, options: options)
            do {
                var source = try saver.preparing(frames.image, options: options)
                if let kept { source = try source.replacingMetadata(with: kept) }
                guard options.encodeMaxFileSize > 0, saver.isLossy else {
                    return try saver.save(source, quality: options.encodeCompressionQuality)
                }
                return try saver.saveFitting(source, maxBytes: options.encodeMaxFileSize, quality: options.encodeCompressionQuality)
            } catch {
                // A frame's own error says why the save failed.
                throw frames.frameError?.error ?? error
            }
        }
    }
}
