import LibVips

/// Rounds an image's corners, optionally with a border: SDWebImage's `SDImageRoundCornerTransformer`.
/// Outside the rounded shape the image is transparent; the border covers the shape's edge,
/// `borderWidth` wide, following the rounded corners.
public struct RoundCornerTransformer: ImageTransformer {
    /// Corners of a rectangle: SDWebImage's `SDRectCorner` (raw values as there).
    public struct RectCorner: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }

        public static let topLeft = RectCorner(rawValue: 1 << 0)
        public static let topRight = RectCorner(rawValue: 1 << 1)
        public static let bottomLeft = RectCorner(rawValue: 1 << 2)
        public static let bottomRight = RectCorner(rawValue: 1 << 3)
        /// Every corner (all bits set, as UIKit's `allCorners`).
        public static let allCorners = RectCorner(rawValue: .max)
    }

    /// Corner radius in points (pixels times the image's scale), at most half the shorter side.
    public let radius: Double
    public let corners: RectCorner
    /// Border width in points; 0 for none.
    public let borderWidth: Double
    /// Border colour; nil for no border.
    public let borderColor: RGBA8?

    /// A transformer rounding `corners` by `radius`, with a border when `borderWidth` > 0 and
    /// `borderColor` is given.
    public init(radius: Double, corners: RectCorner = .allCorners, borderWidth: Double = 0, borderColor: RGBA8? = nil) {
        self.radius = radius
        self.corners = corners
        self.borderWidth = borderWidth
        self.borderColor = borderColor
    }

    public var transformerKey: String {
        "SDImageRoundCornerTransformer(\(TransformerKey.number(radius)),\(corners.rawValue),"
            + "\(TransformerKey.number(borderWidth)),\(TransformerKey.colour(borderColor)))"
    }

    public func transformedImage(with image: Image, forKey key: String) -> Image? {
        let (radius, corners) = (radius.isFinite ? max(0, radius) : 0, corners.rawValue)
        let border = borderColor.flatMap { colour in borderWidth.isFinite && borderWidth > 0 ? (borderWidth, colour) : nil }
        return image.transformed(by: PixelTransform { image, scale throws(VipsError) in
            let (width, height) = (image.width, image.height)
            // White with the shape's coverage as alpha: multiplying keeps the colours and scales
            // the alpha (integer arithmetic, cheaper than compositing).
            let shape = PixelBuffer.roundedRectangle(
                width: width, height: height, radius: radius * scale, corners: corners, ringWidth: 0, colour: [255, 255, 255, 255]
            )
            var rounded = try image.withAlpha().call("multiply", with: VipsImageRef.wrapping(shape), names: ("left", "right"))
                .call("linear", "a=\(1.0 / 255),b=0.5").call("cast", "format=uchar")
            if let (borderWidth, colour) = border {
                let ring = PixelBuffer.roundedRectangle(
                    width: width, height: height, radius: radius * scale, corners: corners, ringWidth: borderWidth * scale,
                    colour: [colour.red, colour.green, colour.blue, colour.alpha]
                )
                rounded = try rounded.composited(with: VipsImageRef.wrapping(ring), mode: "over")
            }
            return rounded
        })
    }
}
