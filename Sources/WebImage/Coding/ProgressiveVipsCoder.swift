import Foundation
internal import ImageEngine

/// Progressive decoding of JPEG (baseline and progressive), PNG (interlaced or not) and GIF:
/// each `incrementalDecodedImage` gives the image as far as the bytes received so far allow
/// (`isIncremental == true`); after the last bytes (`finished`) it gives the whole image.
///
/// JPEG and GIF prefixes go to libvips, which fills what is missing; PNG goes through libpng's
/// push reader fed with each new suffix, since libvips' PNG loader refuses a truncated file.
public final class ProgressiveVipsCoder: ProgressiveImageCoder {
    private struct State {
        var data = Data()
        var finished = false
        var pngDecoder: PNGStreamDecoder?
        var fedCount = 0
    }

    private let options: ImageCoderOptions
    /// `PNGStreamDecoder` is used only under this lock.
    private let state = Locked(State())

    /// The stateless coder, for `canIncrementalDecode` and plain decoding.
    public init() {
        options = ImageCoderOptions()
    }

    public init(incrementalWithOptions options: ImageCoderOptions) {
        self.options = options
    }

    /// Formats whose growing prefixes give partial images: baseline and progressive JPEG,
    /// interlaced or not PNG, GIF.
    public static let incrementalFormats: Set<ImageFormat> = [.jpeg, .png, .gif]

    public func canIncrementalDecode(from data: Data) -> Bool {
        Self.incrementalFormats.contains(ImageFormat(sniffing: data))
    }

    public func updateIncrementalData(_ data: Data, finished: Bool) {
        state.withLock { state in
            state.data = data
            state.finished = finished
            guard ImageFormat(sniffing: data) == .png, data.count > state.fedCount else { return }
            if state.pngDecoder == nil { state.pngDecoder = PNGStreamDecoder(maxPixels: options.decodeMaxPixelCount) }
            state.pngDecoder?.feed(data.subdata(in: (data.startIndex + state.fedCount)..<data.endIndex))
            state.fedCount = data.count
        }
    }

    public func incrementalDecodedImage(options: ImageCoderOptions) -> Image? {
        let (data, finished, partialPNG) = state.withLock { state in
            (state.data, state.finished, state.finished ? nil : state.pngDecoder?.snapshot())
        }
        if finished { return ImageCodersManager.shared.decodedImage(with: data, options: options) }
        let format = ImageFormat(sniffing: data)
        switch format {
        case .png:
            return partialPNG.map { Image(bitmap: $0, scale: options.decodeScaleFactor, format: .png, isIncremental: true) }
        case .jpeg, .gif:
            return Self.partialImage(data, format: format, options: options)
        default:
            return nil
        }
    }

    /// libvips decodes a JPEG or GIF prefix with the missing part filled in; nil until the
    /// header and some image data are there.
    private static func partialImage(_ data: Data, format: ImageFormat, options: ImageCoderOptions) -> Image? {
        guard let loader = VipsLoader(format: format),
              (try? DecodeLimits.check(data, format: format, options: options)) != nil,
              var image = try? VipsImageRef.load(loader.operation, data: data, options: "fail_on=none"),
              image.width * image.pageHeight <= options.decodeMaxPixelCount
        else { return nil }
        do {
            if image.orientation > 1 { image = try image.autorotated() }
            let pixels = try image.normalizedToSRGB().renderRGBA()
            return Image(bitmap: pixels, scale: options.decodeScaleFactor, format: format, isIncremental: true)
        } catch {
            return nil
        }
    }

    // MARK: ImageCoder

    public func canDecode(from data: Data) -> Bool {
        canIncrementalDecode(from: data)
    }

    public func decodedImage(with data: Data, options: ImageCoderOptions) -> Image? {
        VipsImageCoder.shared.decodedImage(with: data, options: options)
    }

    public func canEncode(to format: ImageFormat) -> Bool { false }

    public func encodedData(with image: Image, format: ImageFormat, options: ImageCoderOptions) -> Data? { nil }
}
