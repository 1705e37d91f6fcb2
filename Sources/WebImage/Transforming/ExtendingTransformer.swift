import Foundation
internal import ImageEngine

/// Places an image on a larger canvas, where a gravity says: imgproxy's `extend`. The canvas
/// is transparent unless a background is given.
public struct ExtendingTransformer: ImageTransformer {
    /// The canvas, in points (pixels times the image's scale); a side of 0 or smaller than the
    /// image's keeps the image's side.
    public let size: CGSize
    /// Where the image goes (`.smart` places it in the centre).
    public let gravity: ImageGravity
    /// The canvas colour around the image.
    public let background: RGBA8

    /// A transformer extending the image to `size`, placed by `gravity`, on `background`.
    public init(size: CGSize, gravity: ImageGravity = .center, background: RGBA8 = .clear) {
        self.size = size
        self.gravity = gravity
        self.background = background
    }

    public var transformerKey: String {
        "ExtendingTransformer({\(TransformerKey.number(size.width)),\(TransformerKey.number(size.height))},"
            + "\(gravity.transformerKey),\(TransformerKey.colour(background)))"
    }

    public func transformedImage(with image: Image, forKey key: String) -> Image? {
        let (size, gravity, background) = (size, gravity, background)
        guard size.width.isFinite, size.height.isFinite else { return nil }
        // A canvas no larger than the image leaves it as it is (opaque stays opaque).
        let canvas = Self.canvas(size, scale: image.scale, width: image.pixelWidth, height: image.pixelHeight)
        guard canvas.width > image.pixelWidth || canvas.height > image.pixelHeight else { return image }
        return image.transformed(by: PixelTransform(addsAlpha: background.alpha < 255) { image, scale throws(VipsError) in
            let canvas = Self.canvas(size, scale: scale, width: image.width, height: image.height)
            guard canvas.width > image.width || canvas.height > image.height else { return image }
            let origin = gravity.origin(inner: (image.width, image.height), outer: canvas, scale: scale)
            return try image.embedded(
                x: origin.x, y: origin.y, width: canvas.width, height: canvas.height,
                backgroundRGBA: background.components
            )
        })
    }

    /// The canvas in pixels for a `width` x `height` image: each side of `size` when larger
    /// than the image's, else the image's.
    static func canvas(_ size: CGSize, scale: Double, width: Int, height: Int) -> (width: Int, height: Int) {
        func side(_ points: Double, _ current: Int) -> Int {
            let pixels = (points * scale).rounded()
            return pixels > Double(current) && pixels < Double(Int32.max) ? Int(pixels) : current
        }
        return (side(Double(size.width), width), side(Double(size.height), height))
    }
}
