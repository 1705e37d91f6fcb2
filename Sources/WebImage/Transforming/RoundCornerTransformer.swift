internal import ImageEngine

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
        // Without a border, the alpha is scaled along the edges in C: in one pass over a decoded
        // bitmap, region by region in a lazy pipeline (the same pixels either way).
        var bitmap: PixelTransform.BitmapWork?
        if border == nil {
            bitmap = { pixels, _, scale in pixels.roundingCorners(radius: radius * scale, corners: corners) }
        }
        // HDR samples, without a border: the alpha multiplied by the coverage the 8-bit step
        // gives an opaque white image of the size (a border's colour is SDR: no HDR then).
        var sixteenBit: PixelTransform.SixteenBitStep?
        if border == nil {
            sixteenBit = { image, scale, _ throws(VipsError) in
                let coverage = try image.filled(withRGBA: (255, 255, 255, 255)).roundingCorners(radius: radius * scale, corners: corners)
                    .linear(multipliers: [0, 0, 0, 1.0 / 255], addends: [1, 1, 1, 0])
                return try image.withSixteenBitAlpha().multiplying(by: coverage).cast(to: .ushort)
            }
        }
        return image.transformed(by: PixelTransform(bitmap: bitmap, addsAlpha: true, sixteenBit: sixteenBit) { image, scale throws(VipsError) in
            var rounded = try image.withAlpha().roundingCorners(radius: radius * scale, corners: corners)
            guard let (borderWidth, colour) = border else {
                // The same rounding of the premultiplied pixels, computed only if a later step
                // (a blur) takes them: it then premultiplies nothing.
                let premultiplied = try image.premultipliedEightBit().roundingCorners(radius: radius * scale, corners: corners, premultiplied: true)
                return rounded.keeping(premultiplied: premultiplied)
            }
            // The border covers pixels along the edges only, as deep as the corners' radius or
            // the border: those strips are cut out, bordered and put back. No bitmap the size
            // of the image is made.
            let (width, height) = (image.width, image.height)
            let ringWidth = borderWidth * scale
            let depth = Int(min(max(radius * scale, ringWidth), Double(max(width, height))).rounded(.up)) + 1
            for area in Self.edgeStrips(width: width, height: height, depth: depth) {
                let ring = PixelBuffer.roundedRectangle(
                    width: width, height: height, radius: radius * scale, corners: corners, ringWidth: ringWidth,
                    colour: [colour.red, colour.green, colour.blue, colour.alpha], area: area
                )
                var strip = try rounded.extractingArea(x: area.x, y: area.y, width: area.width, height: area.height)
                    .composited(with: VipsImageRef.wrapping(ring), mode: .over)
                strip = try strip.eightBit()
                rounded = try rounded.inserting(strip, x: area.x, y: area.y)
            }
            return rounded
        })
    }

    /// The strips `depth` pixels deep along the four edges of a `width` x `height` image, top,
    /// bottom, left and right, without overlaps (fewer when they cover the whole image).
    static func edgeStrips(width: Int, height: Int, depth: Int) -> [(x: Int, y: Int, width: Int, height: Int)] {
        let top = min(depth, height), bottom = max(top, height - depth)
        let left = min(depth, width), right = max(left, width - depth)
        let strips = [
            (x: 0, y: 0, width: width, height: top), (x: 0, y: bottom, width: width, height: height - bottom),
            (x: 0, y: top, width: left, height: bottom - top), (x: right, y: top, width: width - right, height: bottom - top),
        ]
        return strips.filter { $0.width > 0 && $0.height > 0 }
    }
}
