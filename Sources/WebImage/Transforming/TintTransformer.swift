internal import ImageEngine

/// Blends a colour over an image: SDWebImage's `SDImageTintTransformer`.
public struct TintTransformer: ImageTransformer {
    /// How the colour meets the image: the Core Graphics blend modes libvips can do, with
    /// `CGBlendMode`'s raw values (which SDWebImage prints in keys).
    public enum BlendMode: Int32, Sendable, CaseIterable {
        case normal = 0, multiply, screen, overlay, darken, lighten, colorDodge, colorBurn, softLight, hardLight
        case difference, exclusion
        case clear = 16, copy, sourceIn, sourceOut, sourceAtop, destinationOver, destinationIn, destinationOut
        case destinationAtop, xor
        case plusLighter = 27

        /// libvips' mode (`VipsBlendMode`).
        var vipsMode: VipsImageRef.BlendMode {
            switch self {
            case .normal: .over
            case .multiply: .multiply
            case .screen: .screen
            case .overlay: .overlay
            case .darken: .darken
            case .lighten: .lighten
            case .colorDodge: .colourDodge
            case .colorBurn: .colourBurn
            case .softLight: .softLight
            case .hardLight: .hardLight
            case .difference: .difference
            case .exclusion: .exclusion
            case .clear: .clear
            case .copy: .source
            case .sourceIn: .sourceIn
            case .sourceOut: .sourceOut
            case .sourceAtop: .sourceAtop
            case .destinationOver: .destinationOver
            case .destinationIn: .destinationIn
            case .destinationOut: .destinationOut
            case .destinationAtop: .destinationAtop
            case .xor: .xor
            case .plusLighter: .add
            }
        }
    }

    /// The colour, with its alpha; a fully transparent colour leaves the image as it is.
    public let color: RGBA8
    public let blendMode: BlendMode

    /// A transformer blending `color` onto the image; `.sourceIn` (the default, as in
    /// SDWebImage) paints the colour wherever the image is, keeping its alpha.
    public init(color: RGBA8, blendMode: BlendMode = .sourceIn) {
        self.color = color
        self.blendMode = blendMode
    }

    public var transformerKey: String {
        "SDImageTintTransformer(\(TransformerKey.colour(color)),\(blendMode.rawValue))"
    }

    public func transformedImage(with image: Image, forKey key: String) -> Image? {
        guard color.alpha > 0 else { return image }
        let (color, mode) = (color, blendMode.vipsMode)
        // HDR samples: the colour, as SDR (203 cd/m² white), in the samples' own encoding.
        let sixteenBit: PixelTransform.SixteenBitStep = { image, _, encoding throws(VipsError) in
            let code = SDRColourCodes(encoding: encoding).codes(of: color)
            let base = try image.withSixteenBitAlpha()
            let overlay = try base.linear(multipliers: [0, 0, 0, 0], addends: code + [Double(color.alpha) * 257]).cast(to: .ushort)
            return try base.blending(overlay, mode: mode).cast(to: .ushort)
        }
        return image.transformed(by: PixelTransform(addsAlpha: true, sixteenBit: sixteenBit) { image, _ throws(VipsError) in
            try image.composited(with: image.filled(withRGBA: color.components), mode: mode)
        })
    }
}
