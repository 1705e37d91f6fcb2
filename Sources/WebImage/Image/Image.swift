import Foundation
internal import ImageEngine

/// A decoded image: SDWebImage's `UIImage`. Immutable and `Sendable`.
///
/// An image either holds its RGBA8 pixels (`isDecoded`) or stays a lazy libvips pipeline over
/// its encoded bytes until pixels are needed, so that decode, thumbnail, transforms and encode
/// chain without a bitmap in between. Pixels read through `pixel(x:y:)` or
/// `withUnsafeRGBA8Bytes` are upright (EXIF orientation applied), sRGB, straight alpha,
/// origin top-left. An animated image is its first frame plus a provider of the others.
public final class Image: Sendable {
    /// Width in pixels, as shown upright.
    public let pixelWidth: Int
    /// Height in pixels, as shown upright.
    public let pixelHeight: Int
    /// Pixels per point (1 unless set by `decodeScaleFactor`).
    public let scale: Double
    /// The format of the data the image was decoded from, `.undefined` for images made from pixels.
    public let format: ImageFormat
    /// True for a partial image from a progressive load.
    public let isIncremental: Bool
    /// True for images from vector data (SVG, PDF).
    public let isVector: Bool
    /// True when the pixels have an alpha channel.
    public let hasAlpha: Bool
    /// What the source said about its colour (primaries, transfer, bits a component, HDR,
    /// headroom), read from the file; `.sRGB` for images made from pixels. The pixels this
    /// image hands out are 8-bit sRGB whatever the source: PQ and HLG sources tone mapped,
    /// wide gamuts mapped into sRGB's.
    public let colorInfo: ImageColorInfo
    /// The frames after the first of an animated image, decoded on demand.
    public let animatedImageProvider: (any AnimatedImageProvider)?

    let recipe: ImageRecipe
    /// With `decodeToHDR`, how to make the source's samples at more than 8 bits.
    let highBitDepth: HighBitDepthSource?
    private let renderedHighBitDepth = Locked<SixteenBitSamples?>(nil)
    let sourceByteCount: Int
    /// The file's EXIF, XMP, IPTC and ICC profile, for encoders that keep them; transforms keep it.
    let metadata: ImageMetadata
    private let pixels: Locked<PixelBuffer?>
    /// The pipeline prepared while decoding (to learn the size), kept for the first reader of a
    /// lazy image so that decode and encode do not each parse the file: libvips images from a
    /// sequential loader can be read once, so it is handed out once, then `recipe` rebuilds.
    private let pendingBuild: Locked<VipsImageRef?>

    init(
        recipe: ImageRecipe,
        pixels: PixelBuffer?,
        pendingBuild: VipsImageRef? = nil,
        pixelWidth: Int,
        pixelHeight: Int,
        scale: Double = 1,
        format: ImageFormat,
        hasAlpha: Bool,
        isIncremental: Bool = false,
        isVector: Bool = false,
        animatedImageProvider: (any AnimatedImageProvider)? = nil,
        sourceByteCount: Int = 0,
        metadata: ImageMetadata = .none,
        colorInfo: ImageColorInfo = .sRGB,
        highBitDepth: HighBitDepthSource? = nil
    ) {
        self.highBitDepth = highBitDepth
        self.recipe = recipe
        self.pixels = Locked(pixels)
        self.pendingBuild = Locked(pixels == nil ? pendingBuild : nil)
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.scale = scale > 0 && scale.isFinite ? scale : 1
        self.format = format
        self.hasAlpha = hasAlpha
        self.isIncremental = isIncremental
        self.isVector = isVector
        self.animatedImageProvider = animatedImageProvider
        self.sourceByteCount = sourceByteCount
        self.metadata = metadata
        self.colorInfo = colorInfo
    }

    /// An image over a bitmap that already holds upright sRGB pixels (3 or 4 bands).
    convenience init(bitmap: PixelBuffer, scale: Double = 1, format: ImageFormat = .undefined, isIncremental: Bool = false) {
        self.init(
            recipe: .bitmap(bitmap), pixels: bitmap.bands == 4 ? bitmap : nil,
            pixelWidth: bitmap.width, pixelHeight: bitmap.height, scale: scale, format: format,
            hasAlpha: bitmap.bands == 4, isIncremental: isIncremental
        )
    }

    /// An image over straight RGBA8 pixels, rows top to bottom (`width * height * 4` bytes).
    /// Returns nil when the byte count does not match the size.
    public convenience init?(rgba8Pixels bytes: some ContiguousBytes, width: Int, height: Int, scale: Double = 1) {
        guard width > 0, height > 0 else { return nil }
        let buffer: PixelBuffer? = bytes.withUnsafeBytes { raw in
            raw.count == width * height * 4 ? PixelBuffer(copying: raw, width: width, height: height, bands: 4) : nil
        }
        guard let buffer else { return nil }
        self.init(bitmap: buffer, scale: scale)
    }

    /// The same image under a new reference (pixels shared, not copied), with `provider` giving
    /// the frames after the first (nil: a still image).
    convenience init(sharing image: Image, animatedImageProvider provider: (any AnimatedImageProvider)?) {
        self.init(
            recipe: image.recipe, pixels: image.pixels.withLock { $0 },
            pendingBuild: image.pendingBuild.withLock { pending in defer { pending = nil }; return pending },
            pixelWidth: image.pixelWidth, pixelHeight: image.pixelHeight, scale: image.scale,
            format: image.format, hasAlpha: image.hasAlpha, isIncremental: image.isIncremental,
            isVector: image.isVector, animatedImageProvider: provider,
            sourceByteCount: image.sourceByteCount, metadata: image.metadata, colorInfo: image.colorInfo,
            highBitDepth: image.highBitDepth
        )
    }

    /// Size in points: pixels divided by `scale`.
    public var size: CGSize {
        CGSize(width: Double(pixelWidth) / scale, height: Double(pixelHeight) / scale)
    }

    /// True when the image holds its decoded pixels (no decoding left to do).
    public var isDecoded: Bool { pixels.withLock { $0 != nil } }

    /// Bytes this image keeps in memory: its decoded pixels, or the encoded bytes a lazy image
    /// decodes from (twice while the pipeline built at decode, which holds libvips' copy of
    /// them, waits for its reader), plus what its animation provider keeps (frames preloaded by
    /// `.preloadAllFrames`). Memory caches record it as the entry's cost when storing.
    public var memoryCost: Int {
        let provided = animatedImageProvider?.animatedImageMemoryCost ?? 0
        if let count = pixels.withLock({ $0?.count }) { return count + provided }
        return (pendingBuild.withLock { $0 == nil } ? sourceByteCount : 2 * sourceByteCount) + provided
    }

    // MARK: Animation

    /// True when the image has more than one frame.
    public var isAnimated: Bool { frameCount > 1 }

    /// Number of frames (1 for a still image).
    public var frameCount: Int { animatedImageProvider?.animatedImageFrameCount ?? 1 }

    /// Times an animation plays (0 = forever); 0 for a still image.
    public var loopCount: Int { animatedImageProvider?.animatedImageLoopCount ?? 0 }

    /// Frame `index` as a still image, or nil when out of range or undecodable.
    public func frame(at index: Int) -> Image? {
        guard index >= 0, index < frameCount else { return nil }
        if index == 0 { return isAnimated ? Image(sharing: self, animatedImageProvider: nil) : self }
        return animatedImageProvider?.animatedImageFrame(at: index)
    }

    /// How long frame `index` shows, in seconds (0 for a still image).
    public func frameDuration(at index: Int) -> TimeInterval {
        animatedImageProvider?.animatedImageDuration(at: index) ?? 0
    }

    // MARK: Pixels

    /// The RGBA8 pixels, decoding them first if needed (once; later calls reuse them).
    func renderedPixels() throws(ImageCodingError) -> PixelBuffer {
        if let pixels = pixels.withLock({ $0 }) { return pixels }
        BlockingCheck.note(description)
        let rendered: PixelBuffer
        do {
            rendered = try WorkBudget.attributingStops { () throws(VipsError) in try makeVipsImage().renderRGBA() }
        } catch {
            throw ImageCodingError(decoding: format, error)
        }
        return pixels.withLock { stored in
            if let stored { return stored }
            stored = rendered
            return rendered
        }
    }

    /// A libvips image of this image's pixels: over the decoded pixels when held, else the
    /// pipeline built at decode (first caller only), else a fresh one from the encoded bytes.
    func makeVipsImage() throws(VipsError) -> VipsImageRef {
        if let pixels = pixels.withLock({ $0 }) { return try VipsImageRef.wrapping(pixels) }
        if let prepared = pendingBuild.withLock({ pending in defer { pending = nil }; return pending }) {
            return try prepared.normalizedToSRGB()
        }
        return try recipe.build()
    }

    /// The pixels an encoder reads: the decoded pixels as held (no libvips image over them),
    /// else the pipeline rendered now (3 or 4 bands), not kept.
    func pixelsToEncode() throws(VipsError) -> PixelBuffer {
        if let pixels = pixels.withLock({ $0 }) { return pixels }
        return try makeVipsImage().render()
    }

    /// Gives `body` the RGBA8 bytes: `pixelWidth * 4` per row, rows top to bottom. Decodes a lazy
    /// image first, which throws if its data turns out to be corrupt.
    public func withUnsafeRGBA8Bytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        let buffer = try renderedPixels()
        return try buffer.withUnsafeBytes(body)
    }

    /// The pixel at column `x`, row `y` (origin top-left), or nil outside the image or when a lazy
    /// image cannot be decoded.
    public func pixel(x: Int, y: Int) -> RGBA8? {
        guard x >= 0, y >= 0, x < pixelWidth, y < pixelHeight,
              let buffer = try? renderedPixels(), buffer.width == pixelWidth, buffer.height == pixelHeight
        else { return nil }
        return buffer.withUnsafeBytes { bytes in
            let offset = (y * pixelWidth + x) * 4
            return RGBA8(red: bytes[offset], green: bytes[offset + 1], blue: bytes[offset + 2], alpha: bytes[offset + 3])
        }
    }

    // MARK: HDR

    /// Bits a component of the samples this image keeps: 16 for an image decoded with
    /// `decodeToHDR` from a source of more than 8 bits (`withUnsafeRGBA16Samples` gives them),
    /// else 8.
    public var bitsPerComponent: Int { highBitDepth == nil ? 8 : 16 }

    /// True when the image keeps HDR samples (PQ or HLG, decoded with `decodeToHDR`). Its 8-bit
    /// pixels (`pixel(x:y:)`, `withUnsafeRGBA8Bytes`) are still SDR, tone mapped; encoders
    /// write it HDR to AVIF, HEIC, JPEG XL and PNG (`encodeKeepsHDR`).
    public var isHighDynamicRange: Bool { highBitDepth != nil && colorInfo.isHighDynamicRange }

    /// Gives `body` the image's 16-bit samples, RGBA, `pixelWidth * 4` a row, rows top to
    /// bottom, full signal at 65535: an image decoded with `decodeToHDR` gives its source's
    /// samples unconverted (PQ or HLG codes in the source's primaries, `colorInfo` says which);
    /// any other image its 8-bit sRGB pixels widened (`v * 257`). Decoded on first use and kept.
    public func withUnsafeRGBA16Samples<R>(_ body: (UnsafeBufferPointer<UInt16>) throws -> R) throws -> R {
        guard highBitDepth != nil else {
            let widened = try withUnsafeRGBA8Bytes { bytes in bytes.map { UInt16($0) * 257 } }
            return try widened.withUnsafeBufferPointer(body)
        }
        let samples = try sixteenBitSamples()
        if samples.bands == 4 { return try samples.samples.withUnsafeBufferPointer(body) }
        var rgba = [UInt16](repeating: .max, count: samples.width * samples.height * 4)
        for pixel in 0..<(samples.width * samples.height) {
            for channel in 0..<3 { rgba[pixel * 4 + channel] = samples.samples[pixel * 3 + channel] }
        }
        return try rgba.withUnsafeBufferPointer(body)
    }

    /// The kept 16-bit samples (RGB or RGBA), rendered once.
    func sixteenBitSamples() throws(ImageCodingError) -> SixteenBitSamples {
        if let rendered = renderedHighBitDepth.withLock({ $0 }) { return rendered }
        guard let highBitDepth else { throw .unsupportedFormat(format) }
        let rendered: SixteenBitSamples
        do {
            rendered = try WorkBudget.attributingStops { () throws(VipsError) in try highBitDepth.samples() }
        } catch {
            throw ImageCodingError(decoding: format, error)
        }
        return renderedHighBitDepth.withLock { stored in
            if let stored { return stored }
            stored = rendered
            return rendered
        }
    }

    /// Decodes the pixels now if the image is lazy, and returns it.
    public func decoded() throws(ImageCodingError) -> Image {
        _ = try renderedPixels()
        return self
    }
}

extension Image: CustomStringConvertible {
    /// Format, size, scale, frames and loop count, and whether the image is partial.
    public var description: String {
        var text = "Image(\(format) \(pixelWidth)x\(pixelHeight)"
        if scale != 1 { text += " @\(scale)x" }
        if isAnimated { text += " \(frameCount) frames loop \(loopCount)" }
        if isIncremental { text += " partial" }
        return text + ")"
    }
}
