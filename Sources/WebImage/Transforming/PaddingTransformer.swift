internal import ImageEngine

/// Adds margins around an image: imgproxy's `padding`, CSS's order. The margins are
/// transparent unless a background is given.
public struct PaddingTransformer: ImageTransformer {
    /// Margins in points (pixels times the image's scale); negative ones count as 0.
    public let top: Double
    public let right: Double
    public let bottom: Double
    public let left: Double
    /// The margins' colour.
    public let background: RGBA8

    /// A transformer adding the margins `top`, `right`, `bottom`, `left` of `background`.
    public init(top: Double, right: Double, bottom: Double, left: Double, background: RGBA8 = .clear) {
        self.top = top
        self.right = right
        self.bottom = bottom
        self.left = left
        self.background = background
    }

    public var transformerKey: String {
        let margins = [top, right, bottom, left].map(TransformerKey.number).joined(separator: ",")
        return "PaddingTransformer(\(margins),\(TransformerKey.colour(background)))"
    }

    public func transformedImage(with image: Image, forKey key: String) -> Image? {
        let (margins, background) = ([top, right, bottom, left], background)
        guard margins.allSatisfy(\.isFinite) else { return nil }
        guard margins.contains(where: { ($0 * image.scale).rounded(.toNearestOrEven) > 0 }) else { return image }
        return image.transformed(by: PixelTransform(addsAlpha: background.alpha < 255) { image, scale throws(VipsError) in
            // Rounded half to even, as imgproxy scales its padding.
            let pixels = margins.map { Int(min(max(0, ($0 * scale).rounded(.toNearestOrEven)), Double(1 << 24))) }
            guard pixels.contains(where: { $0 > 0 }) else { return image }
            return try image.embedded(
                x: pixels[3], y: pixels[0], width: image.width + pixels[1] + pixels[3], height: image.height + pixels[0] + pixels[2],
                backgroundRGBA: background.components
            )
        })
    }
}
