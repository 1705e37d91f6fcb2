internal import ImageEngine

/// Blurs an image with a Gaussian: SDWebImage's `SDImageBlurTransformer`. An image with alpha is
/// blurred with its colours premultiplied in 8 bits, as SDWebImage's does.
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
        // HDR samples: in floating point, premultiplied when there is alpha.
        let sixteenBit: PixelTransform.SixteenBitStep = { image, scale, _ throws(VipsError) in
            try image.premultipliedInFloat(to: .ushort) { colours throws(VipsError) in
                try colours.cast(to: .float).gaussianBlur(sigma: radius * scale)
            }.cast(to: .ushort)
        }
        return image.transformed(by: PixelTransform(sixteenBit: sixteenBit) { image, scale throws(VipsError) in
            let sigma = radius * scale
            guard image.hasAlpha else { return try image.gaussianBlur(sigma: sigma) }
            // Blurred premultiplied in 8 bits, as vImage (SDWebImage's blur) and Core Graphics
            // do: libvips' integer convolution, where floating point costs about twice as much
            // (`webimage-benchmark transformers`). Where alpha is at least 64 a colour is within
            // 4 levels of a floating-point blur's; fainter pixels have fewer levels to keep.
            // After a step that had the premultiplied pixels (round corners), they are taken as
            // they are.
            return try image.premultipliedEightBit().gaussianBlur(sigma: sigma).unpremultipliedEightBit()
        })
    }
}
