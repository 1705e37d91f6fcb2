import Foundation
import WebImage

/// Turns a source's bytes into a result by a request's options: imgproxy's pipeline on the
/// library's coders and transformers. The source's header is checked against the limits
/// before any pixel is decoded; the source is decoded shrunk on load to the size the options
/// need and stays one lazy libvips pipeline through the transforms to the encoder; every frame
/// of a kept animation is processed.
public struct ImageProcessor: Sendable {
    /// The coders that decode sources and encode results.
    public let coders: ImageCodersManager

    /// A processor on `coders` (the library's shared coders by default).
    public init(coders: ImageCodersManager = .shared) {
        self.coders = coders
    }

    /// The result for `source` (its bytes) by `options`, in the format `plan` decides, made on
    /// the blocking pool. Errors carry their status: 422 for a source that cannot be read or
    /// is over a limit, or a format that cannot be written. `max_bytes` is a target, as in
    /// imgproxy: a lossy result that cannot meet it is sent at its smallest, a lossless one as
    /// it is.
    public func process(_ source: Data, options: ProcessingOptions, format plan: OutputFormatPlan) async throws(ImageServerError) -> ProcessedImage {
        try await process(source, options: options, format: plan, watermark: nil)
    }

    /// `process(_:options:format:)` in the calling thread, which it blocks: for callers
    /// already off the cooperative pool.
    public func processNow(_ source: Data, options: ProcessingOptions, format plan: OutputFormatPlan) throws(ImageServerError) -> ProcessedImage {
        try processNow(source, options: options, format: plan, watermark: nil)
    }

    /// `process(_:options:format:)` with the server's mark, which `options.watermark` draws.
    func process(_ source: Data, options: ProcessingOptions, format plan: OutputFormatPlan, watermark: WatermarkMark?) async throws(ImageServerError) -> ProcessedImage {
        do {
            return try await BlockingPool.run { try self.processNow(source, options: options, format: plan, watermark: watermark) }
        } catch let error as ImageServerError {
            throw error
        } catch {
            throw .unreadableSource("\(error)")
        }
    }

    private func processNow(_ source: Data, options: ProcessingOptions, format plan: OutputFormatPlan, watermark: WatermarkMark?) throws(ImageServerError) -> ProcessedImage {
        // `raw`: the source as it came, once its header reads as an image, over any limit.
        if options.raw {
            return ProcessedImage(unprocessed: source, header: try SourceInspection.header(of: source))
        }
        // `enforce_thumbnail`: a HEIC or AVIF source's embedded thumbnail is the source, its limits too.
        // Reading the header counts in the decode's time budget: for an SVG it is a whole parse.
        let started = DecodeTimeBudget.threadCPUTime
        let header = try SourceInspection.header(of: source, embeddedThumbnail: options.enforceThumbnail)
        let budget = ImageCoderOptions().decodeTimeBudget.less(DecodeTimeBudget.threadCPUTime - started)
        var format = try plan.format(for: header)
        let animated = plan.isAnimated(header) && OutputFormatPlan.animates(format)
        // imgproxy's `max_animation_frames`: an animation's first frames are processed, the rest dropped.
        let frames = animated ? min(header.frameCount, max(1, options.maxAnimationFrames)) : 1
        let facts = SourceFacts(header: header, frames: frames, byteCount: source.count)
        try facts.check(options)
        if options.skipProcessingFormats.contains(header.format), header.format != .svg, options.format ?? header.format == header.format {
            var unprocessed = ProcessedImage(unprocessed: source, header: header)
            unprocessed.sourceFacts = facts
            return unprocessed
        }
        let steps = ProcessingSteps(
            header: header, options: options, format: format, animated: animated, budget: budget, coders: coders, watermark: watermark
        )
        let resized = try steps.run(source)
        let image = try steps.watermarked(try steps.finish(resized.image), dprScale: resized.dprScale)
        format = OutputFormatPlan.format(format, fitting: image)
        let data = try encode(image, format: format, animated: animated, options: options, encoding: plan.encoding)
        var processed = ProcessedImage(
            data: data, format: format, pixelWidth: image.pixelWidth, pixelHeight: image.pixelHeight,
            frameCount: animated ? image.frameCount : 1, source: header
        )
        processed.sourceFacts = facts
        return processed
    }

    private func encode(
        _ image: Image, format: ImageFormat, animated: Bool, options: ProcessingOptions, encoding settings: EncoderSettings
    ) throws(ImageServerError) -> Data {
        var encoding = ImageCoderOptions()
        encoding.encodeCompressionQuality = Double(min(100, max(1, options.quality(for: format)))) / 100
        encoding.encodeFirstFrameOnly = !animated
        encoding.encodeMaxFileSize = options.maxBytes
        // No background colour for the encoder: `finish` flattened what needs it, and one
        // would make an HDR image SDR.
        encoding.encodeKeepsHDR = options.preserveHDR
        settings.apply(to: &encoding, format: format)
        // imgproxy's `strip_metadata`, `keep_copyright` and `strip_color_profile`.
        var kept: ImageCoderOptions.KeptMetadata = options.stripMetadata ? (options.keepCopyright ? .copyright : []) : [.exif, .xmp, .iptc]
        if !options.stripColorProfile { kept.insert(.colorProfile) }
        encoding.encodeKeepsMetadata = !kept.isEmpty
        encoding.encodeKeptMetadata = kept
        do {
            return try coders.encode(image, format: format, options: encoding)
        } catch {
            // The source is decoded while encoding: a corrupt one fails here, and so does one
            // over a limit (its decode's time budget, the encoders' limit on an animation's pixels).
            if case .unsupportedFormat = error { throw .unsupportedOutputFormat("\(format) cannot be written") }
            throw SourceInspection.mapped(error)
        }
    }
}
