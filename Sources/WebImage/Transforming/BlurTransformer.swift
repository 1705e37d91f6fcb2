import LibVips

/// Blurs an image with a Gaussian: SDWebImage's `SDImageBlurTransformer`.
public struct BlurTransformer: ImageTransformer {
    /// The Gaussian's standard deviation, in points (pixels times the image's scale).
    public let radius: Double

    /// A transformer blurring by `radius` points.
    public init(radius: Double) {
        self.radius = radius
    }

    public var transformerKey: String {
        "SDImageBlurTransformer(\(TransformerKey.number(radius)))"
    }

    public func transformedImage(with image: Image, forKey key: String) -> Image? {
        guard radius.isFinite, radius > 0 else { return image }
        let radius = radius
        return image.transformed(by: PixelTransform { image, scale throws(VipsError) in
            let sigma = radius * scale
            return try image.premultiplied { colours throws(VipsError) in try colours.call("gaussblur", "sigma=\(sigma)") }
        })
    }
}
