/// Why faces could not be looked for in an image.
public enum FaceDetectionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The source could not be decoded (or the image's pixels could not be read).
    case decoding(ImageCodingError)
    /// The detector failed: a cascade file that cannot be loaded, or OpenCV's own failure.
    case detector(String)

    public var description: String {
        switch self {
        case .decoding(let error): "cannot look for faces: \(error)"
        case .detector(let message): "face detection failed: \(message)"
        }
    }
}
