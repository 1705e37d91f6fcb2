import Foundation

/// The images decoded from one download's bytes while its callers are served. A caller gets the
/// image decoded with its own options, or, when it asks for a thumbnail, one derived from a
/// larger decode of the same bytes with otherwise equal options: loads of one URL at several
/// thumbnail sizes share one decode of the original. Anything else is decoded for it.
struct SharedDecodes {
    /// Which coder decodes for a caller: the shared coders, or the context's coder when it is an
    /// object (the same instance decodes alike).
    enum CoderIdentity: Equatable {
        case shared
        case object(ObjectIdentifier)
    }

    /// What serves a caller.
    enum Source {
        /// A decode with exactly its options.
        case decoded(Result<Image, WebImageError>)
        /// A larger still image to make its thumbnail from.
        case larger(Image)
    }

    private var decodes: [(coder: CoderIdentity, options: ImageCoderOptions, result: Result<Image, WebImageError>)] = []

    /// The identity of the coder `context` decodes with, or nil when its decodes cannot be
    /// shared (a coder of value type).
    static func coder(of context: WebImageContext?) -> CoderIdentity? {
        guard let coder = context?.imageCoder else { return .shared }
        guard type(of: coder) is AnyClass else { return nil }
        return .object(ObjectIdentifier(coder as AnyObject))
    }

    mutating func record(_ result: Result<Image, WebImageError>, options: ImageCoderOptions, coder: CoderIdentity) {
        decodes.append((coder, options, result))
    }

    /// A decode that serves `options`, or nil when one must be made.
    func source(for options: ImageCoderOptions, coder: CoderIdentity) -> Source? {
        if let exact = decodes.first(where: { $0.coder == coder && $0.options == options }) { return .decoded(exact.result) }
        guard Self.isFittedThumbnail(options) else { return nil }
        let box = options.decodeThumbnailPixelSize
        for decode in decodes where decode.coder == coder && Self.family(decode.options) == Self.family(options) {
            guard case .success(let image) = decode.result, !image.isAnimated, !image.isVector else { continue }
            let larger = decode.options.decodeThumbnailPixelSize
            if larger == .zero || (decode.options.decodePreserveAspectRatio && larger.width >= box.width && larger.height >= box.height) {
                return .larger(image)
            }
        }
        return nil
    }

    /// Of `requests`, the ones to decode first: per family, a full decode if one is asked for,
    /// else the largest fitted thumbnail, so that the others can be made from it.
    static func decodeFirst(_ requests: [(options: ImageCoderOptions, coder: CoderIdentity)]) -> [(options: ImageCoderOptions, coder: CoderIdentity)] {
        var chosen: [(options: ImageCoderOptions, coder: CoderIdentity)] = []
        for request in requests where isFittedThumbnail(request.options) || request.options.decodeThumbnailPixelSize == .zero {
            if let index = chosen.firstIndex(where: { $0.coder == request.coder && family($0.options) == family(request.options) }) {
                if area(request.options) > area(chosen[index].options) { chosen[index] = request }
            } else {
                chosen.append(request)
            }
        }
        return chosen
    }

    /// `image` shrunk to fit `box` (pixels) as a thumbnail decode fits it: aspect kept, never
    /// enlarged, sides rounded. Nil when the resize fails. Blocking: call it on the blocking pool.
    static func thumbnail(of image: Image, fitting box: CGSize) -> Image? {
        let (width, height) = (Double(image.pixelWidth), Double(image.pixelHeight))
        let factor = max(1, width / box.width, height / box.height)
        let fitted = (max(1, (width / factor).rounded()), max(1, (height / factor).rounded()))
        guard fitted != (width, height) else { return image }
        let points = CGSize(width: fitted.0 / image.scale, height: fitted.1 / image.scale)
        return ResizingTransformer(size: points, scaleMode: .fill).transformedImage(with: image, forKey: "")
    }

    /// A thumbnail that keeps the aspect ratio, in a box with both sides set.
    private static func isFittedThumbnail(_ options: ImageCoderOptions) -> Bool {
        let box = options.decodeThumbnailPixelSize
        return options.decodePreserveAspectRatio && box.width >= 1 && box.height >= 1
    }

    /// The options without the thumbnail box: decodes in one family differ only in size.
    private static func family(_ options: ImageCoderOptions) -> ImageCoderOptions {
        var options = options
        options.decodeThumbnailPixelSize = .zero
        options.decodePreserveAspectRatio = true
        return options
    }

    private static func area(_ options: ImageCoderOptions) -> Double {
        let box = options.decodeThumbnailPixelSize
        return box == .zero ? .infinity : box.width * box.height
    }
}
