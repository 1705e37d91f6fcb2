import Foundation
internal import ImageEngine

/// The pixel analyses of an image: average colour, dominant colours, a palette, BlurHash,
/// ThumbHash and a perceptual hash, all computed from one small copy of it.
///
/// The copy fits in `thumbnailPixelSize` pixels a side: from encoded data it is a shrink-on-load
/// decode (JPEG's DCT scaling, libvips' thumbnail), so a large source costs little more than a
/// small one (but a WebP with alpha, decoded whole: see `init(data:coder:options:)`); from an
/// `Image` it is resized with the library's Lanczos-3, colours weighted by alpha. Every analysis reads
/// the same upright sRGB pixels, straight alpha. Making one decodes, so it blocks: make it off
/// the cooperative pool, as any decode.
public struct ImageAnalysis: Sendable {
    /// The longest side of the copy analysed: ThumbHash's encoder takes at most 100x100, and
    /// at this size the averages and hashes are within a few levels of a full-size image's.
    public static let thumbnailPixelSize = 100
    /// The most pixels a placeholder (`Image(blurHash:size:)`) may have: 16 megapixels.
    public static let maxPlaceholderPixelCount = 16_777_216

    /// Width of the copy analysed, in pixels.
    public let pixelWidth: Int
    /// Height of the copy analysed, in pixels.
    public let pixelHeight: Int
    /// RGBA8 pixels, straight alpha, rows top to bottom.
    let rgba: [UInt8]

    /// Analyses encoded `data`, decoded by `coder` at thumbnail size with `options`' limits (its
    /// thumbnail size, frame and HDR settings are replaced: the first frame, 8-bit).
    public init(
        data: Data, coder: any ImageCoder = ImageCodersManager.shared, options: ImageCoderOptions = ImageCoderOptions()
    ) throws(ImageAnalysisError) {
        var options = AnalysisCopy.decodeOptions(options, fitting: Self.thumbnailPixelSize)
        // A WebP with alpha is decoded whole and resized here, colours weighted by alpha:
        // libwebp's scaled decode (libvips 8.14's shrink-on-load of WebP) resizes the colours
        // of transparent pixels with the rest, and their hidden colour bleeds into the edges
        // (webp/lossy_alpha1.webp, white under its transparency: a mean colour of 34, 35, 26
        // from the shrunk decode, 16, 18, 8 at full size).
        if ImageFormat(sniffing: data) == .webP, (try? ImageHeader(probing: data))?.hasAlpha ?? true {
            options.decodeThumbnailPixelSize = .zero
        }
        let image: Image
        do {
            image = try coder.decode(data, options: options)
        } catch {
            throw .decoding(error)
        }
        try self.init(image: image)
    }

    /// Analyses a page other than the first (`ImageInfo`'s `page`): the loader's lazy image of
    /// it, turned upright and resized by libvips' thumbnail (colours weighted by alpha, and no
    /// shrink-on-load, so a WebP's hidden colours do not bleed), in sRGB.
    init(page: VipsImageRef, format: ImageFormat) throws(ImageAnalysisError) {
        let pixels: PixelBuffer
        do {
            let side = Self.thumbnailPixelSize
            pixels = try (page.orientation > 1 ? page.autorotated() : page).thumbnail(width: side, height: side, sizing: .down)
                .normalizedToSRGB().renderRGBA()
        } catch {
            throw .decoding(.corruptData(format: format, reason: error.message))
        }
        let rgba = pixels.withUnsafeBytes { Array($0) }
        self.init(rgba: rgba, width: pixels.width, height: pixels.height)
    }

    /// Analyses `image` (its first frame), resized first when larger than `thumbnailPixelSize`.
    public init(image: Image) throws(ImageAnalysisError) {
        guard let source = AnalysisCopy.fitted(image, side: Self.thumbnailPixelSize) else {
            throw .decoding(.corruptData(format: image.format, reason: "cannot resize it for analysis"))
        }
        let pixels: PixelBuffer
        do {
            pixels = try source.renderedPixels()
        } catch {
            throw .decoding(error)
        }
        guard pixels.width > 0, pixels.height > 0, pixels.bands == 4 || pixels.bands == 3 else {
            throw .decoding(.corruptData(format: image.format, reason: "\(pixels.bands) bands, RGB(A) expected"))
        }
        let count = pixels.width * pixels.height * 4
        var rgba = [UInt8](repeating: 255, count: count)
        pixels.withUnsafeBytes { bytes in
            if pixels.bands == 4 {
                rgba.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[0..<count])) }
            } else {
                for pixel in 0..<(pixels.width * pixels.height) {
                    for channel in 0..<3 { rgba[pixel * 4 + channel] = bytes[pixel * 3 + channel] }
                }
            }
        }
        self.init(rgba: rgba, width: pixels.width, height: pixels.height)
    }

    /// Analyses pixels held already (`rgba`: `width * height * 4` bytes).
    init(rgba: [UInt8], width: Int, height: Int) {
        precondition(rgba.count == width * height * 4 && width > 0 && height > 0, "pixels and size disagree")
        self.rgba = rgba
        pixelWidth = width
        pixelHeight = height
    }

    /// The size a `width` x `height` image is analysed at: fitted in `thumbnailPixelSize`, as
    /// the shrink-on-load decode fits it, never enlarged.
    static func fittedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        AnalysisCopy.fittedSize(width: width, height: height, side: thumbnailPixelSize)
    }

    /// Number of pixels analysed.
    var pixelCount: Int { pixelWidth * pixelHeight }
}
