internal import ImageEngine

/// Sharpens an image by libvips' unsharp mask (`sharpen`, on the lightness): imgproxy's
/// `sharpen`. An image with alpha is sharpened with its colours premultiplied, as imgproxy does.
public struct SharpeningTransformer: ImageTransformer {
    /// The mask's Gaussian standard deviation, in points (pixels times the image's scale).
    public let sigma: Double

    /// A transformer sharpening with a Gaussian of `sigma` points.
    public init(sigma: Double) {
        self.sigma = sigma
    }

    public var transformerKey: String {
        "SharpeningTransformer(\(TransformerKey.number(sigma)))"
    }

    public func transformedImage(with image: Image, forKey key: String) -> Image? {
        guard sigma.isFinite, sigma > 0 else { return image }
        let sigma = sigma
        return image.transformed(by: PixelTransform { image, scale throws(VipsError) in
            let sigma = min(sigma * scale, 10_000)
            guard image.hasAlpha else { return try image.sharpened(sigma: sigma).eightBit() }
            return try image.premultipliedEightBit().sharpened(sigma: sigma).eightBit().unpremultipliedEightBit()
        })
    }
}
