internal import ImageEngine

/// Blends an image's transparency onto a colour, leaving it opaque: imgproxy's `background`.
/// An image without alpha is left as it is.
public struct FlatteningTransformer: ImageTransformer {
    /// The colour behind the image; its alpha is ignored (the result is opaque).
    public let background: RGBA8

    /// A transformer flattening onto `background`.
    public init(background: RGBA8) {
        self.background = background
    }

    public var transformerKey: String {
        "FlatteningTransformer(\(TransformerKey.colour(background)))"
    }

    public func transformedImage(with image: Image, forKey key: String) -> Image? {
        guard image.hasAlpha else { return image }
        let background = background
        return image.transformed(by: PixelTransform { image, _ throws(VipsError) in
            guard image.hasAlpha else { return image }
            return try image.flattened(red: Double(background.red), green: Double(background.green), blue: Double(background.blue))
        })
    }
}
