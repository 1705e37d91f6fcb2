import LibVips

/// Mirrors an image: SDWebImage's `SDImageFlippingTransformer`.
public struct FlippingTransformer: ImageTransformer {
    /// Left and right swap.
    public let horizontal: Bool
    /// Top and bottom swap.
    public let vertical: Bool

    /// A transformer flipping horizontally, vertically, or both.
    public init(horizontal: Bool, vertical: Bool) {
        self.horizontal = horizontal
        self.vertical = vertical
    }

    public var transformerKey: String {
        "SDImageFlippingTransformer(\(TransformerKey.flag(horizontal)),\(TransformerKey.flag(vertical)))"
    }

    public func transformedImage(with image: Image, forKey key: String) -> Image? {
        guard horizontal || vertical else { return image }
        let (horizontal, vertical) = (horizontal, vertical)
        return image.transformed(by: PixelTransform(movesPixelsOnly: true) { image, _ throws(VipsError) in
            switch (horizontal, vertical) {
            case (true, true): try image.call("rot", "angle=d180")
            case (true, false): try image.call("flip", "direction=horizontal")
            default: try image.call("flip", "direction=vertical")
            }
        })
    }
}
