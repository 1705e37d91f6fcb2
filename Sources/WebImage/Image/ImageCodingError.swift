internal import ImageEngine

/// Why data could not be decoded or an image could not be encoded.
public enum ImageCodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The data is empty.
    case emptyData
    /// No coder recognises the data's format.
    case unknownFormat
    /// The format is recognised, but no coder handles it in this direction.
    case unsupportedFormat(ImageFormat)
    /// The header claims more pixels than the configured limit; nothing was decoded.
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// The data asks for more work than a decode limit allows (`decodeMaxScanCount`,
    /// `decodeMaxFrameCount`, `decodeMaxTotalPixelCount`, `decodeMaxMetadataBytes`), and nothing
    /// was decoded; or its decode took more CPU time than `decodeTimeBudget` and was stopped.
    case overLimit(format: ImageFormat, reason: String)
    /// The image asks for more encoding work than an encode limit allows
    /// (`encodeMaxTotalPixelCount`); nothing was encoded.
    case overEncodeLimit(format: ImageFormat, reason: String)
    /// The data is truncated or corrupt; `reason` is the codec's message.
    case corruptData(format: ImageFormat, reason: String)
    /// The encoder failed; `reason` is the codec's message.
    case encodingFailed(format: ImageFormat, reason: String)

    public var description: String {
        switch self {
        case .emptyData: "empty data"
        case .unknownFormat: "not an image format this library knows"
        case .unsupportedFormat(let format): "no coder for \(format)"
        case let .tooManyPixels(width, height, limit): "\(width)x\(height) exceeds the limit of \(limit) pixels"
        case let .overLimit(format, reason): "\(format) over a decode limit: \(reason)"
        case let .overEncodeLimit(format, reason): "\(format) over an encode limit: \(reason)"
        case let .corruptData(format, reason): "corrupt \(format) data: \(reason)"
        case let .encodingFailed(format, reason): "cannot encode \(format): \(reason)"
        }
    }
}

extension ImageCodingError {
    /// A decode of `format` that libvips failed: over its time budget (`decodeTimeBudget`), or
    /// corrupt data.
    init(decoding format: ImageFormat, _ error: VipsError) {
        self = error.isOverTimeBudget
            ? .overLimit(format: format, reason: "stopped, its CPU time past its budget (decodeTimeBudget): \(error.message)")
            : .corruptData(format: format, reason: error.message)
    }

    /// An encode to `format` of an image decoded from `source` that libvips failed: the lazy
    /// image's decode, over its time budget, or the encoder.
    init(encoding format: ImageFormat, from source: ImageFormat, _ error: VipsError) {
        self = error.isOverTimeBudget ? ImageCodingError(decoding: source, error) : .encodingFailed(format: format, reason: error.message)
    }

    /// Runs an encode to `format` of an image decoded from `source`, its failures as this type:
    /// libvips' through `init(encoding:from:_:)`, others as `encodingFailed`.
    static func catchingEncodeFailures<T>(to format: ImageFormat, from source: ImageFormat, _ body: () throws -> T) throws(ImageCodingError) -> T {
        do {
            return try WorkBudget.attributingStops(body)
        } catch let error as ImageCodingError {
            throw error
        } catch let error as VipsError {
            // A lazy image's pixels are decoded as the saver reads them.
            throw ImageCodingError(encoding: format, from: source, error)
        } catch {
            throw .encodingFailed(format: format, reason: "\(error)")
        }
    }
}
