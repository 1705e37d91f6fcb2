import Foundation
internal import ImageEngine

/// The frames of one animated GIF or WebP, each decoded by libvips when asked for, in one
/// forward pass over the file when asked for in order (`VipsFrameCursor`).
public final class VipsAnimatedImageCoder: AnimatedImageCoder, ThrowingAnimatedImageProvider {
    private let data: Data
    private let loader: VipsLoader
    private let header: VipsHeader
    private let options: ImageCoderOptions
    private let cursor: VipsFrameCursor

    init(data: Data, loader: VipsLoader, header: VipsHeader, plan: DecodePlan, options: ImageCoderOptions) {
        self.data = data
        self.loader = loader
        self.header = header
        self.options = options
        self.cursor = VipsFrameCursor(data: data, loader: loader, header: header, plan: plan, budget: options.decodeTimeBudget.animation)
    }

    public convenience init?(animatedImageData data: Data, options: ImageCoderOptions) {
        guard let loader = VipsLoader(format: ImageFormat(sniffing: data)), loader.isAnimatable,
              let header = try? loader.header(of: data, options: options), header.pageCount > 1
        else { return nil }
        self.init(data: data, loader: loader, header: header, plan: DecodePlan(header: header, options: options), options: options)
    }

    public var animatedImageData: Data? { data }
    public var animatedImageFrameCount: Int { header.pageCount }
    public var animatedImageLoopCount: Int { header.loop }

    /// Frame `index`; `overLimit` once the pass over the frames has spent its time budget
    /// (`decodeTimeBudget.animation`).
    public func decodeFrame(at index: Int) throws(ImageCodingError) -> Image {
        guard index >= 0, index < header.pageCount else { throw .noFrame(index, of: header.pageCount, format: loader.format) }
        let pixels: PixelBuffer
        do {
            pixels = try WorkBudget.attributingStops { () throws(VipsError) in try cursor.frame(at: index) }
        } catch {
            throw ImageCodingError(decoding: loader.format, error)
        }
        return Image(
            recipe: .bitmap(pixels), pixels: pixels, pixelWidth: pixels.width, pixelHeight: pixels.height,
            scale: options.decodeScaleFactor, format: loader.format, hasAlpha: header.hasAlpha
        )
    }

    public func animatedImageDuration(at index: Int) -> TimeInterval {
        guard index >= 0, index < header.pageCount else { return 0 }
        let milliseconds = index < header.delays.count ? header.delays[index] : 100
        return FrameDuration.normalized(milliseconds: milliseconds)
    }

    // MARK: ImageCoder

    public func canDecode(from data: Data) -> Bool {
        let format = ImageFormat(sniffing: data)
        return format == .gif || format == .webP
    }

    public func decodedImage(with data: Data, options: ImageCoderOptions) -> Image? {
        VipsImageCoder.shared.decodedImage(with: data, options: options)
    }

    public func canEncode(to format: ImageFormat) -> Bool {
        format == .gif || format == .webP
    }

    public func encodedData(with image: Image, format: ImageFormat, options: ImageCoderOptions) -> Data? {
        VipsImageCoder.shared.encodedData(with: image, format: format, options: options)
    }
}

/// Frame timing rules shared by the animated coders.
enum FrameDuration {
    /// Seconds for a stored delay: like browsers and SDWebImage, 10 ms or less means 100 ms.
    static func normalized(milliseconds: Int) -> TimeInterval {
        milliseconds <= 10 ? 0.1 : Double(milliseconds) / 1000
    }
}
