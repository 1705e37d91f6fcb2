/// Why an image could not be analysed, or a hash or its arguments were refused.
public enum ImageAnalysisError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The source could not be decoded (or the image's pixels could not be read).
    case decoding(ImageCodingError)
    /// BlurHash takes 1...9 components on each axis.
    case componentCountOutOfRange(x: Int, y: Int)
    /// A palette has 2...256 colours.
    case colorCountOutOfRange(Int)
    /// A placeholder's size is empty, not finite or larger than `ImageAnalysis.maxPlaceholderPixelCount`.
    case placeholderSizeOutOfRange(width: Double, height: Double)
    /// The string is not a BlurHash; `reason` says what is wrong with it.
    case invalidBlurHash(reason: String)
    /// The bytes are not a ThumbHash; `reason` says what is wrong with them.
    case invalidThumbHash(reason: String)
    /// The string is not a 64-bit perceptual hash in hexadecimal.
    case invalidPerceptualHash(reason: String)

    public var description: String {
        switch self {
        case .decoding(let error): "cannot analyse the image: \(error)"
        case let .componentCountOutOfRange(x, y): "BlurHash components \(x)x\(y): each must be 1...9"
        case .colorCountOutOfRange(let count): "palette of \(count) colours: 2...256 allowed"
        case let .placeholderSizeOutOfRange(width, height): "placeholder size \(width)x\(height) is empty or too large"
        case .invalidBlurHash(let reason): "not a BlurHash: \(reason)"
        case .invalidThumbHash(let reason): "not a ThumbHash: \(reason)"
        case .invalidPerceptualHash(let reason): "not a perceptual hash: \(reason)"
        }
    }
}
