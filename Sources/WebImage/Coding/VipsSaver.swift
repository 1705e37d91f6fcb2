import Foundation
internal import ImageEngine

/// The libvips saver for one format and the preparation an image needs before it.
struct VipsSaver: Sendable {
    let format: ImageFormat
    private let operation: String
    private let fixedOptions: String
    /// Lossy formats take a quality and can be searched for a byte budget.
    let isLossy: Bool
    let supportsAlpha: Bool
    let supportsAnimation: Bool
    private let keepsMetadata: Bool
    /// libwebp's method and preset, for the animated WebP saver.
    private let webPEffort: Int
    private let webPPreset: Int

    /// The saver for `format`, with the encoder knobs of `options` (interlacing, palette,
    /// effort, WebP preset); with `keepsMetadata` it writes the metadata the image to save
    /// carries (`replacingMetadata(with:)`), else none.
    init?(format: ImageFormat, keepsMetadata: Bool = false, options: ImageCoderOptions = ImageCoderOptions()) {
        self.format = format
        let formatOptions: String
        let effort = options.encodeEffort
        switch format {
        case .jpeg:
            (operation, isLossy, supportsAlpha, supportsAnimation) = ("jpegsave_buffer", true, false, false)
            formatOptions = options.encodeInterlaced ? "interlace=true," : ""
        case .png:
            (operation, isLossy, supportsAlpha, supportsAnimation) = ("pngsave_buffer", false, true, false)
            formatOptions = (options.encodeInterlaced ? "interlace=true," : "") + Self.paletteOptions(options, palette: true)
        case .gif:
            (operation, isLossy, supportsAlpha, supportsAnimation) = ("gifsave_buffer", false, true, true)
            formatOptions = Self.paletteOptions(options, palette: false)
        case .webP:
            (operation, isLossy, supportsAlpha, supportsAnimation) = ("webpsave_buffer", true, true, true)
            formatOptions = "preset=\(options.encodeWebPPreset.rawValue)," + Self.effortOption(effort, in: 0...6)
        case .heic, .heif:
            (operation, isLossy, supportsAlpha, supportsAnimation) = ("heifsave_buffer", true, true, false)
            formatOptions = "compression=hevc," + Self.effortOption(effort, in: 0...9)
        case .avif:
            (operation, isLossy, supportsAlpha, supportsAnimation) = ("heifsave_buffer", true, true, false)
            formatOptions = "compression=av1," + Self.effortOption(effort, in: 0...9)
        case .tiff: (operation, formatOptions, isLossy, supportsAlpha, supportsAnimation) = ("tiffsave_buffer", "compression=deflate,", false, true, false)
        case .jxl:
            (operation, isLossy, supportsAlpha, supportsAnimation) = ("jxlsave_buffer", true, true, false)
            formatOptions = Self.effortOption(effort, in: 1...9)
        default: return nil
        }
        fixedOptions = formatOptions + (keepsMetadata ? "strip=false" : "strip=true")
        self.keepsMetadata = keepsMetadata
        webPEffort = effort.map { min(6, max(0, $0)) } ?? 4
        // libwebp numbers its presets in the order of `WebPPreset`'s cases, as libvips does.
        webPPreset = ImageCoderOptions.WebPPreset.allCases.firstIndex(of: options.encodeWebPPreset) ?? 0
    }

    /// `effort=N,` with `effort` clamped to `range`; nothing for the saver's default.
    private static func effortOption(_ effort: Int?, in range: ClosedRange<Int>) -> String {
        Self.effort(effort, in: range).map { "effort=\($0)," } ?? ""
    }

    /// `effort` clamped to `range`, the scale of the format's encoder; nil for its default.
    static func effort(_ effort: Int?, in range: ClosedRange<Int>) -> Int? {
        effort.map { min(range.upperBound, max(range.lowerBound, $0)) }
    }

    /// A PNG's palette (`palette` true) or a GIF's, of `encodePaletteColorCount` colours as a
    /// bit depth, and the quantiser's effort (1...10).
    private static func paletteOptions(_ options: ImageCoderOptions, palette: Bool) -> String {
        let colors = options.encodePaletteColorCount
        guard colors > 0 else { return palette ? "" : effortOption(options.encodeEffort, in: 1...10) }
        let depth = colors > 16 ? 8 : colors > 4 ? 4 : colors > 2 ? 2 : 1
        return (palette ? "palette=true," : "") + "bitdepth=\(depth)," + effortOption(options.encodeEffort, in: 1...10)
    }

    /// The image to save: an animation strip (all frames top to bottom, with timing) when the
    /// format animates and the image is animated, else the first frame. The strip is lazy and
    /// decodes one frame at a time as the saver reads it (`VipsImageRef.lazyFrames`); the first
    /// error a frame throws is kept in `frameError`.
    func frames(of image: Image, options: ImageCoderOptions) throws -> (image: VipsImageRef, frameError: FirstFrameError?) {
        guard supportsAnimation, image.isAnimated, !options.encodeFirstFrameOnly else {
            let still = try image.makeVipsImage()
            if let grey = try greyStill(still, of: image, options: options) { return (grey, nil) }
            // Decoded pixels are RGBA even when opaque: drop that band rather than flatten it.
            return (!image.hasAlpha && still.bands == 4 ? try still.extractingBands(from: 0, count: 3) : still, nil)
        }
        let frames = try AnimationFrames(of: image, format: format, options: options)
        let frameError = FirstFrameError()
        let strip = try VipsImageRef.lazyFrames(width: frames.width, frameHeight: frames.height, count: frames.count) { index, output in
            do {
                let pixels = try frames.frame(at: index).renderRGBA()
                guard pixels.count == output.count else { throw VipsError("frame \(index) has another size") }
                pixels.withUnsafeBytes { output.copyMemory(from: $0) }
            } catch {
                frameError.record(error)
                throw error
            }
        }
        let animation = try strip.withAnimation(
            pageHeight: frames.height, delays: frames.delays, loop: Self.storableLoopCount(image.loopCount)
        )
        return (animation, frameError)
    }

    /// A grey source's image as grey bands, for a format that holds grey (and its alpha, if it
    /// has one; flattened here onto a grey background for one without alpha), when its pixels
    /// are still grey (a tint or a coloured watermark made them colour): imgproxy keeps grey
    /// the same way. The pixels are rendered once, then saved. A WebP source stores no grey
    /// (libwebp decodes every file as RGB), so its pixels alone say whether it is grey.
    private func greyStill(_ still: VipsImageRef, of image: Image, options: ImageCoderOptions) throws -> VipsImageRef? {
        guard image.colorInfo.isGrey || image.format == .webP, [.png, .jpeg, .tiff].contains(format) else { return nil }
        var still = still
        var keepsAlpha = image.hasAlpha
        if keepsAlpha, !supportsAlpha {
            let background = options.encodeBackgroundColor ?? .white
            guard background.red == background.green, background.green == background.blue else { return nil }
            still = try still.flattened(red: Double(background.red), green: Double(background.green), blue: Double(background.blue))
            keepsAlpha = false
        }
        let pixels = try still.renderRGBA()
        let rendered = try VipsImageRef.wrapping(pixels)
        guard image.colorInfo.isGrey ? pixels.isGrey : pixels.isGreyUpToYUVRounding else {
            return keepsAlpha ? rendered : try rendered.extractingBands(from: 0, count: 3)
        }
        return try rendered.keepingGreyBand(withAlpha: keepsAlpha)
    }

    /// A frame duration in whole milliseconds: durations come from any `AnimatedImageProvider`,
    /// so one that is not a finite, non-negative number gives 0 rather than a trap in `Int(_:)`.
    static func milliseconds(_ seconds: TimeInterval) -> Int {
        let value = (seconds * 1000).rounded()
        guard value >= 0 else { return 0 }
        return Int(min(value, Double(Int32.max)))
    }

    /// GIF (the NETSCAPE extension) and WebP (ANIM) store the loop count in 16 bits: a larger
    /// count, such as an APNG's up to 2^32 - 1, becomes the most they can store rather than
    /// wrapping around (2^31 would wrap to 0, which means forever); a negative one means forever.
    static func storableLoopCount(_ loop: Int) -> Int {
        min(max(loop, 0), Int(UInt16.max))
    }

    /// Scales down to `encodeMaxPixelSize` (still images) and flattens alpha the format lacks.
    func preparing(_ image: VipsImageRef, options: ImageCoderOptions) throws(VipsError) -> VipsImageRef {
        var image = image
        // Animation strips were scaled frame by frame (`animationFrames`).
        if image.pageHeight == image.height { image = try image.scaledDown(toFit: options.encodeMaxPixelSize) }
        if !supportsAlpha, image.hasAlpha {
            let background = options.encodeBackgroundColor ?? .white
            image = try image.flattened(red: Double(background.red), green: Double(background.green), blue: Double(background.blue))
        }
        return image
    }

    func save(_ image: VipsImageRef, quality: Double) throws(VipsError) -> Data {
        try save(image, qualityValue: Self.qualityValue(quality))
    }

    /// libvips' output, without the metadata its WebP saver writes in spite of `strip=true`; an
    /// animated WebP is saved by our own saver (`savedAsAnimatedWebP`), which writes metadata only
    /// when it is kept.
    private func save(_ image: VipsImageRef, qualityValue: Int) throws(VipsError) -> Data {
        if format == .webP, image.pageHeight < image.height {
            return try image.savedAsAnimatedWebP(quality: qualityValue, effort: webPEffort, preset: webPPreset, keepsMetadata: keepsMetadata)
        }
        let saved = try image.save(operation, options: options(quality: qualityValue))
        return format == .webP && !keepsMetadata ? WebPMetadataChunks.removed(from: saved) : saved
    }

    /// The best quality whose output fits in `maxBytes`, or the smallest output if none does.
    func saveFitting(_ image: VipsImageRef, maxBytes: Int, quality: Double) throws(VipsError) -> Data {
        // Decode once: every attempt below encodes the same pixels.
        let isStrip = image.pageHeight < image.height
        let source = isStrip ? image : try VipsImageRef.wrapping(image.render())
        var high = Self.qualityValue(quality)
        let first = try save(source, qualityValue: high)
        if first.count <= maxBytes { return first }
        var low = 1
        var best: Data?
        var smallest = first
        high -= 1
        while low <= high {
            let middle = (low + high) / 2
            let attempt = try save(source, qualityValue: middle)
            if attempt.count < smallest.count { smallest = attempt }
            if attempt.count <= maxBytes {
                best = attempt
                low = middle + 1
            } else {
                high = middle - 1
            }
        }
        if let best { return best }
        let lowest = try save(source, qualityValue: 1)
        return lowest.count < smallest.count ? lowest : smallest
    }

    private func options(quality: Int) -> String {
        isLossy ? "Q=\(quality)," + fixedOptions : fixedOptions
    }

    /// libvips' Q (1...100) for a 0...1 quality; clamped before the conversion to `Int`, which
    /// would trap on a caller's 1e300.
    static func qualityValue(_ quality: Double) -> Int {
        guard quality.isFinite else { return 100 }
        return Int(min(100, max(1, (quality * 100).rounded())))
    }
}

extension VipsImageRef {
    /// This image scaled down (aspect kept) to fit `size` in pixels, when it is larger; a side
    /// of `size` under one pixel means no limit (`encodeMaxPixelSize`'s zero).
    func scaledDown(toFit size: CGSize) throws(VipsError) -> VipsImageRef {
        let box = size.pixelBox(rounding: .towardZero)
        guard box.width >= 1, box.height >= 1, width > box.width || height > box.height else { return self }
        return try thumbnail(width: box.width, height: box.height, sizing: .down)
    }
}

/// The frames of an animated image to encode, each decoded when asked for (a frame at a time,
/// in order: an animation's frames together may not fit in memory), with their delays in
/// milliseconds, scaled down to fit `encodeMaxPixelSize` when set (all frames alike); refused
/// before any is decoded when they pass `encodeMaxTotalPixelCount`.
struct AnimationFrames: Sendable {
    let image: Image
    let format: ImageFormat
    let maxPixelSize: CGSize
    let count: Int
    let delays: [Int]
    /// The size of the first frame as encoded, which every frame has.
    let width: Int
    let height: Int

    init(of image: Image, format: ImageFormat, options: ImageCoderOptions) throws {
        self.image = image
        self.format = format
        self.maxPixelSize = options.encodeMaxPixelSize
        self.count = image.frameCount
        self.delays = (0..<image.frameCount).map { VipsSaver.milliseconds(image.frameDuration(at: $0)) }
        // Built, not decoded: its header gives the size.
        let first = try Self.frame(of: image, at: 0, format: format, maxPixelSize: options.encodeMaxPixelSize)
        self.width = first.width
        self.height = first.height
        let framePixels = max(width * height, ImageCoderOptions.encodeFramePixelFloor)
        let total = framePixels.multipliedReportingOverflow(by: count)
        if total.overflow || total.partialValue > options.encodeMaxTotalPixelCount {
            throw ImageCodingError.overEncodeLimit(
                format: format,
                reason: "\(count) frames of \(width)x\(height) pixels, more than the limit of \(options.encodeMaxTotalPixelCount) pixels in all (encodeMaxTotalPixelCount)"
            )
        }
    }

    /// Frame `index`, 8-bit RGBA, scaled as the first (a new pipeline each call: a lazy frame's
    /// sequential loader can be read once). The frames come from one pass of the animation's
    /// provider, which its time budget bounds as a whole, the first included unless it is
    /// decoded already.
    func frame(at index: Int) throws -> VipsImageRef {
        try Self.frame(of: image, at: index, format: format, maxPixelSize: maxPixelSize, fromPass: !image.isDecoded)
    }

    /// Frame `index` of `image`: with `fromPass`, the first too from the animation's provider
    /// (a pass over its frames), else from the image itself (built, not decoded, when lazy).
    private static func frame(
        of image: Image, at index: Int, format: ImageFormat, maxPixelSize: CGSize, fromPass: Bool = false
    ) throws -> VipsImageRef {
        let frame: Image
        do {
            if index == 0, fromPass, let provider = image.animatedImageProvider {
                frame = try provider.frameOrError(at: 0, format: image.format)
            } else {
                frame = try image.decodeFrame(at: index)
            }
        } catch {
            // A decode limit or the time budget stopped it: the decode's error, as for a still image.
            if case .overLimit = error { throw error }
            throw ImageCodingError.encodingFailed(format: format, reason: "frame \(index) cannot be decoded: \(error)")
        }
        guard frame.pixelWidth == image.pixelWidth, frame.pixelHeight == image.pixelHeight else {
            throw ImageCodingError.encodingFailed(format: format, reason: "frame \(index) has another size")
        }
        return try frame.makeVipsImage().scaledDown(toFit: maxPixelSize).withAlpha()
    }
}

/// The first error a frame of a lazy animation strip threw while a saver read it. The saver's
/// own failure carries the frame's message through libvips' error buffer, which is the
/// process's: another thread's failure read in between can take that message out of it, and
/// the save would then fail as "the animated WebP save failed", not as the frame's error (a
/// decode budget's stop, say), which this keeps.
final class FirstFrameError: Sendable {
    private let first = Locked<(any Error)?>(nil)

    func record(_ error: any Error) {
        first.withLock { if $0 == nil { $0 = error } }
    }

    var error: (any Error)? { first.withLock { $0 } }
}
