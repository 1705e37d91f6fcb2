internal import ImageEngine

/// Cuts away an image's borders of one colour: imgproxy's `trim`, by libvips' find_trim. An
/// image with alpha is looked at flattened onto magenta (so transparent borders are cut), as
/// imgproxy does. An animation is cut where its first frame's borders end, on every frame.
public struct TrimmingTransformer: ImageTransformer {
    /// How far (0...255, on each band) a colour may be from the border colour and still be border.
    public let threshold: Double
    /// The border colour (alpha ignored); nil for the colour of the top-left pixel.
    public let color: RGBA8?
    /// Cut as much from the left as from the right: the smaller of the two cuts on both sides.
    public let equalHorizontal: Bool
    /// Cut as much from the top as from the bottom.
    public let equalVertical: Bool

    /// A transformer cutting borders within `threshold` of `color` (the top-left pixel's when nil).
    public init(threshold: Double = 10, color: RGBA8? = nil, equalHorizontal: Bool = false, equalVertical: Bool = false) {
        self.threshold = threshold
        self.color = color
        self.equalHorizontal = equalHorizontal
        self.equalVertical = equalVertical
    }

    public var transformerKey: String {
        "TrimmingTransformer(\(TransformerKey.number(threshold)),\(TransformerKey.colour(color)),"
            + "\(TransformerKey.flag(equalHorizontal)),\(TransformerKey.flag(equalVertical)))"
    }

    public func transformedImage(with image: Image, forKey key: String) -> Image? {
        guard threshold.isFinite, let area = try? trimmedArea(in: image.firstFramePixels()) else { return nil }
        return image.cropped(toPixelArea: area)
    }

    /// The part of `pixels` (the first frame) to keep: all of it when nothing but border is found.
    func trimmedArea(in pixels: VipsImageRef) throws(VipsError) -> (x: Int, y: Int, width: Int, height: Int) {
        let (width, height) = (pixels.width, pixels.height)
        let opaque = pixels.hasAlpha ? try pixels.flattened(red: 255, green: 0, blue: 255) : pixels
        let background: [Double]
        if let color {
            background = [Double(color.red), Double(color.green), Double(color.blue)]
        } else {
            background = try opaque.extractingArea(x: 0, y: 0, width: 1, height: 1).eightBit().render()
                .withUnsafeBytes { bytes in bytes.prefix(3).map { Double($0) } }
        }
        var box = try opaque.trimArea(threshold: threshold, background: background)
        guard box.width > 0, box.height > 0 else { return (0, 0, width, height) }
        if equalHorizontal {
            // The side cut less sets both.
            let right = width - box.x - box.width
            if right > box.x { box.width += right - box.x } else if right < box.x { box.width += box.x - right; box.x = right }
        }
        if equalVertical {
            let bottom = height - box.y - box.height
            if bottom > box.y { box.height += bottom - box.y } else if bottom < box.y { box.height += box.y - bottom; box.y = bottom }
        }
        return box
    }
}
