import Foundation

/// Decodes data into images and encodes images into data: SDWebImage's `SDImageCoder`.
public protocol ImageCoder: Sendable {
    /// True when this coder can decode `data` (usually from its leading bytes).
    func canDecode(from data: Data) -> Bool
    /// The decoded image, or nil when the data is not decodable.
    func decodedImage(with data: Data, options: ImageCoderOptions) -> Image?
    /// True when this coder can write `format`.
    func canEncode(to format: ImageFormat) -> Bool
    /// The encoded bytes, or nil when encoding fails.
    func encodedData(with image: Image, format: ImageFormat, options: ImageCoderOptions) -> Data?

    /// Like `decodedImage(with:options:)`, saying why decoding failed.
    func decode(_ data: Data, options: ImageCoderOptions) throws(ImageCodingError) -> Image
    /// Like `encodedData(with:format:options:)`, saying why encoding failed.
    func encode(_ image: Image, format: ImageFormat, options: ImageCoderOptions) throws(ImageCodingError) -> Data
}

extension ImageCoder {
    public func decode(_ data: Data, options: ImageCoderOptions) throws(ImageCodingError) -> Image {
        guard let image = decodedImage(with: data, options: options) else {
            throw .corruptData(format: ImageFormat(sniffing: data), reason: "\(Self.self) could not decode it")
        }
        return image
    }

    public func encode(_ image: Image, format: ImageFormat, options: ImageCoderOptions) throws(ImageCodingError) -> Data {
        guard let data = encodedData(with: image, format: format, options: options) else {
            throw .encodingFailed(format: format, reason: "\(Self.self) could not encode it")
        }
        return data
    }
}

/// A coder written with typed errors: it implements `decode(_:options:)` and
/// `encode(_:format:options:)`, and the optional forms SDWebImage's API uses
/// (`decodedImage`, `encodedData`) follow from them. A coder that only decodes (or only
/// encodes) leaves the other out: it then throws `unsupportedFormat`.
public protocol ThrowingImageCoder: ImageCoder {}

extension ThrowingImageCoder {
    /// Unless implemented: the data is not a format this coder reads.
    public func decode(_ data: Data, options: ImageCoderOptions) throws(ImageCodingError) -> Image {
        throw .unsupportedFormat(ImageFormat(sniffing: data))
    }

    /// Unless implemented: this coder does not write `format`.
    public func encode(_ image: Image, format: ImageFormat, options: ImageCoderOptions) throws(ImageCodingError) -> Data {
        throw .unsupportedFormat(format)
    }

    public func decodedImage(with data: Data, options: ImageCoderOptions) -> Image? {
        try? decode(data, options: options)
    }

    public func encodedData(with image: Image, format: ImageFormat, options: ImageCoderOptions) -> Data? {
        try? encode(image, format: format, options: options)
    }
}

/// A coder that decodes a file while its bytes arrive: SDWebImage's `SDProgressiveImageCoder`.
/// An instance made with `init(incrementalWithOptions:)` holds one file's state.
public protocol ProgressiveImageCoder: ImageCoder {
    /// True when `data` (a prefix of a file) is a format this coder decodes incrementally.
    func canIncrementalDecode(from data: Data) -> Bool
    /// A decoder for one file.
    init(incrementalWithOptions options: ImageCoderOptions)
    /// Gives the decoder all the bytes received so far; `finished` marks the last call.
    func updateIncrementalData(_ data: Data, finished: Bool)
    /// The image as far as decoded: partial (`isIncremental`) until the data is finished.
    func incrementalDecodedImage(options: ImageCoderOptions) -> Image?
    /// `incrementalDecodedImage(options:)`, saying why there is no image: nil only while the
    /// bytes so far give none yet; `overLimit` when a decode limit or the time budget stops the
    /// decode of what has arrived (there the optional form answers nil too).
    func decodeIncrementally(options: ImageCoderOptions) throws(ImageCodingError) -> Image?
}

extension ProgressiveImageCoder {
    /// Unless implemented: `incrementalDecodedImage(options:)`, whose nil gives no reason.
    public func decodeIncrementally(options: ImageCoderOptions) throws(ImageCodingError) -> Image? {
        incrementalDecodedImage(options: options)
    }
}

/// A coder whose instances give the frames of one animated file: SDWebImage's `SDAnimatedImageCoder`.
public protocol AnimatedImageCoder: ImageCoder, AnimatedImageProvider {
    /// A provider for the frames of `data`, or nil when it is not an animation this coder reads.
    init?(animatedImageData data: Data, options: ImageCoderOptions)
}
