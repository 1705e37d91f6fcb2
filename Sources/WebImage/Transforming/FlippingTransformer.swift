internal import ImageEngine

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
        // The EXIF orientation that mirrors so: a decoded bitmap is flipped by our orientation
        // code, in one pass over its RGBA pixels (libvips' flip costs 5-20x more).
        let orientation = horizontal && vertical ? 3 : horizontal ? 2 : 4
        let bitmap: PixelTransform.BitmapWork = { pixels, _, _ in pixels.oriented(orientation) }
        return image.transformed(by: PixelTransform(bitmap: bitmap, movesPixelsOnly: true) { image, _ throws(VipsError) in
            switch (horizontal, vertical) {
            case (true, true): try image.rotated(quarterTurns: 2)
            case (true, false): try image.flipped(.horizontal)
            default: try image.flipped(.vertical)
            }
        })
    }
}
