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

    /// `decodeIncrementally(options:)`, nil where it throws.
    public func incrementalDecodedImage(options: ImageCoderOptions) -> Image? {
        try? decodeIncrementally(options: options)
    }

    public func decodeIncrementally(options: ImageCoderOptions) throws(ImageCodingError) -> Image? {
        let (data, finished, partialPNG) = state.withLock { state in
            (state.data, state.finished, state.finished ? nil : state.pngDecoder?.snapshot())
        }
        if finished { return try ImageCodersManager.shared.decode(data, options: options) }
        let format = ImageFormat(sniffing: data)
        switch format {
        case .png:
            return partialPNG.map { Image(bitmap: $0, scale: options.decodeScaleFactor, format: .png, isIncremental: true) }
        case .jpeg, .gif:
            return try Self.partialImage(data, format: format, options: options)
        default:
            return nil
        }
    }

    /// libvips decodes a JPEG or GIF prefix with the missing part filled in (a progressive
    /// JPEG by our reader), under a full-size time budget of its own; nil until the header and
    /// some image data are there. A prefix over a decode limit, or whose decode the budget
    /// stopped, is `overLimit` (`tooManyPixels` over the pixel limit).
    private static func partialImage(_ data: Data, format: ImageFormat, options: ImageCoderOptions) throws(ImageCodingError) -> Image? {
        guard let loader = VipsLoader(format: format) else { return nil }
        try DecodeLimits.check(data, format: format, options: options)
        let budget = WorkBudget(limit: options.decodeTimeBudget.fullSize)
        let loaded = format == .jpeg && VipsLoader.isProgressiveJPEG(data)
            ? try? VipsImageRef.loadProgressiveJPEG(data, failsOnTruncation: false)
            : try? VipsImageRef.load(loader.operation, data: data, options: "fail_on=none")
        guard var image = loaded else { return nil }
        guard image.width * image.pageHeight <= options.decodeMaxPixelCount else {
            throw .tooManyPixels(width: image.width, height: image.pageHeight, limit: options.decodeMaxPixelCount)
        }
        do {
            image = try image.budgeted(by: budget)
            // Turned upright from the whole image, read once (the reader is sequential).
            if image.orientation > 1 { image = try image.heldWhole().autorotated() }
            let pixels = try budget.stopping { () throws(VipsError) in try image.normalizedToSRGB().renderRGBA() }
            return Image(bitmap: pixels, scale: options.decodeScaleFactor, format: format, isIncremental: true)
        } catch {
            if error.isOverTimeBudget { throw ImageCodingError(decoding: format, error) }
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
