import Foundation
import LibVips

/// The frames of one animated GIF or WebP, each decoded by libvips when asked for.
public final class VipsAnimatedImageCoder: AnimatedImageCoder {
    private let data: Data
    private let loader: VipsLoader
    private let header: VipsHeader
    private let plan: DecodePlan
    private let options: ImageCoderOptions

    init(data: Data, loader: VipsLoader, header: VipsHeader, plan: DecodePlan, options: ImageCoderOptions) {
        self.data = data
        self.loader = loader
        self.header = header
        self.plan = plan
        var frameOptions = options
        frameOptions.decodeUseLazyDecoding = false
        self.options = frameOptions
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

    public func animatedImageFrame(at index: Int) -> Image? {
        guard index >= 0, index < header.pageCount else { return nil }
        return try? VipsImageCoder.image(
            from: loader.pipeline(for: data, plan: plan, page: index), format: loader.format,
            options: options, provider: nil, sourceByteCount: 0
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
