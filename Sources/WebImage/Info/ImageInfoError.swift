/// Why an `ImageInfo` could not be read, or its options not parsed.
public enum ImageInfoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The header could not be read, or it is over a decode limit (pixels, frames, metadata):
    /// the same errors a decode of the file would give, before any pixel.
    case header(ImageCodingError)
    /// A pixel analysis (or the transparency check) failed: its small decode, or its arguments.
    case analysis(ImageAnalysisError)
    /// An info option that cannot be read: unknown, not supported, or with a bad argument.
    case invalidOption(String)
    /// `detect_objects`: the faces could not be looked for (the copy's decode, or the detector).
    case objects(FaceDetectionError)

    /// The reason in words, the option named.
    public var description: String {
        switch self {
        case .header(let error): "\(error)"
        case .analysis(let error): "\(error)"
        case .invalidOption(let reason): "invalid info option: \(reason)"
        case .objects(let error): "\(error)"
        }
    }
}
