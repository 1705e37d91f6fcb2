internal import ImageEngine

/// Rotates an image: SDWebImage's `SDImageRotationTransformer`.
public struct RotationTransformer: ImageTransformer {
    /// Radians, counter-clockwise.
    public let angle: Double
    /// Grow the canvas to hold the whole rotated image (true), or keep the image's size,
    /// cutting the corners off (false). New area is transparent.
    public let fitSize: Bool

    /// A transformer rotating by `angle` radians counter-clockwise.
    public init(angle: Double, fitSize: Bool) {
        self.angle = angle
        self.fitSize = fitSize
    }

    public var transformerKey: String {
        "SDImageRotationTransformer(\(TransformerKey.number(angle)),\(TransformerKey.flag(fitSize)))"
    }

    public func transformedImage(with image: Image, forKey key: String) -> Image? {
        guard angle.isFinite else { return nil }
        let (angle, fitSize) = (angle, fitSize)
        // libvips turns clockwise; quarter turns are exact (no resampling).
        let degrees = (-angle * 180 / .pi).truncatingRemainder(dividingBy: 360)
        let quarterTurns = (degrees / 90).rounded()
        let isQuarterTurn = abs(degrees - quarterTurns * 90) < 1e-9
        // Quarter turns that fill the canvas only move pixels.
        let movesPixelsOnly = isQuarterTurn && (fitSize || Int(quarterTurns) % 2 == 0)
        let turns = isQuarterTurn ? Int(quarterTurns) : nil
        // HDR samples: other angles interpolated premultiplied in floating point.
        let sixteenBit: PixelTransform.SixteenBitStep = { image, _, _ throws(VipsError) in
            try Self.rotated(image, quarterTurns: turns, fitSize: fitSize, withAlpha: { image throws(VipsError) in try image.withSixteenBitAlpha() }) { image throws(VipsError) in
                try image.withSixteenBitAlpha().premultipliedInFloat(to: .ushort) { colours throws(VipsError) in
                    try colours.rotated(degrees: degrees, background: [0, 0, 0, 0])
                }
            }
        }
        return image.transformed(by: PixelTransform(movesPixelsOnly: movesPixelsOnly, addsAlpha: !isQuarterTurn, sixteenBit: sixteenBit) { image, _ throws(VipsError) in
            try Self.rotated(image, quarterTurns: turns, fitSize: fitSize, withAlpha: { image throws(VipsError) in try image.withAlpha() }) { image throws(VipsError) in
                // Interpolated premultiplied in 8 bits, as Core Graphics (SDWebImage's rotation)
                // does: in floating point it cost 1.4x more, and rendering it varied by a third.
                try image.premultipliedEightBit().rotated(degrees: degrees, background: [0, 0, 0, 0]).unpremultipliedEightBit()
            }
        })
    }

    /// `image` turned by `quarterTurns` (exact), else by `interpolated`; on its own canvas
    /// (transparent where uncovered, alpha added by `withAlpha`) unless `fitSize`.
    private static func rotated(
        _ image: VipsImageRef, quarterTurns: Int?, fitSize: Bool, withAlpha: (VipsImageRef) throws(VipsError) -> VipsImageRef,
        interpolated: (VipsImageRef) throws(VipsError) -> VipsImageRef
    ) throws(VipsError) -> VipsImageRef {
        let (width, height) = (image.width, image.height)
        var rotated: VipsImageRef
        if let quarterTurns {
            rotated = try image.rotated(quarterTurns: quarterTurns)
            if fitSize || (rotated.width == width && rotated.height == height) { return rotated }
            rotated = try withAlpha(rotated)
        } else {
            rotated = try interpolated(image)
            if fitSize { return rotated }
        }
        return try rotated.centred(width: width, height: height, background: [0, 0, 0, 0])
    }
}
