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
    /// `decodeMaxFrameCount`, `decodeMaxTotalPixelCount`, `decodeMaxMetadataBytes`); nothing was decoded.
    case overLimit(format: ImageFormat, reason: String)
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
        case let .corruptData(format, reason): "corrupt \(format) data: \(reason)"
        case let .encodingFailed(format, reason): "cannot encode \(format): \(reason)"
        }
    }
}
