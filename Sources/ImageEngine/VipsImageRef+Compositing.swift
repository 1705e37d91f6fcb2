/// libvips building blocks the transformers share.
extension VipsImageRef {
    /// `body` run on the colours premultiplied by alpha in floating point when the image has
    /// alpha, so that resampling does not bleed the colour of transparent pixels into visible
    /// ones; back to straight `format` after (`premultipliedEightBit()` stays in 8 bits). A
    /// 16-bit image's alpha is full at 65535 (libvips' rule for `rgb16`).
    public func premultipliedInFloat(
        to format: BandFormat = .uchar, _ body: (VipsImageRef) throws(VipsError) -> VipsImageRef
    ) throws(VipsError) -> VipsImageRef {
        guard hasAlpha else { return try body(self) }
        return try body(premultiplied()).unpremultiplied().cast(to: format)
    }

    /// An image of this one's size filled with the colour `rgba` (alpha included): lazy, never
    /// a bitmap.
    public func filled(withRGBA rgba: (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8)) throws(VipsError) -> VipsImageRef {
        try withAlpha().linear(
            multipliers: [0, 0, 0, 0], addends: [Double(rgba.red), Double(rgba.green), Double(rgba.blue), Double(rgba.alpha)]
        ).cast(to: .uchar)
    }

    /// A way libvips' composite blends an overlay onto a base (`VipsBlendMode`): the
    /// Porter-Duff operators and the separable blend modes (all but `dest` and `saturate`).
    public enum BlendMode: String, Sendable, CaseIterable {
        /// Nothing left: transparent.
        case clear
        /// The overlay alone.
        case source
        /// The overlay over the base.
        case over
        /// The overlay where the base is.
        case sourceIn = "in"
        /// The overlay where the base is not.
        case sourceOut = "out"
        /// The overlay where the base is, over the base.
        case sourceAtop = "atop"
        /// The base over the overlay.
        case destinationOver = "dest-over"
        /// The base where the overlay is.
        case destinationIn = "dest-in"
        /// The base where the overlay is not.
        case destinationOut = "dest-out"
        /// The base where the overlay is, over the overlay.
        case destinationAtop = "dest-atop"
        /// Each where the other is not.
        case xor
        /// The sum of both, clipped.
        case add
        /// The colours multiplied: darker.
        case multiply
        /// The colours' complements multiplied: lighter.
        case screen
        /// Multiply or screen, by the base's colour.
        case overlay
        /// The darker of the two colours.
        case darken
        /// The lighter of the two colours.
        case lighten
        /// The base brightened to reflect the overlay.
        case colourDodge = "colour-dodge"
        /// The base darkened to reflect the overlay.
        case colourBurn = "colour-burn"
        /// Multiply or screen, by the overlay's colour.
        case hardLight = "hard-light"
        /// Darken or lighten softly, by the overlay's colour.
        case softLight = "soft-light"
        /// The absolute difference of the colours.
        case difference
        /// The difference, with less contrast.
        case exclusion
    }

    /// `overlay` blended onto this image by `mode`, its top-left corner at (`x`, `y`) (libvips'
    /// `composite2`: alpha is added to an image without, and both are blended in sRGB, or in
    /// `rgb16` when either is read as 16-bit, `withInterpretation(.rgb16)`). The result has
    /// this image's size, with alpha.
    public func blending(_ overlay: VipsImageRef, mode: BlendMode, x: Int = 0, y: Int = 0) throws(VipsError) -> VipsImageRef {
        try call("composite2", with: overlay, names: ("base", "overlay"), "mode=\(mode.rawValue),x=\(x),y=\(y)")
    }

    /// `overlay` drawn onto this image, with alpha added first when it has none, by `mode`.
    public func composited(with overlay: VipsImageRef, mode: BlendMode) throws(VipsError) -> VipsImageRef {
        try withAlpha().blending(overlay, mode: mode)
    }
}

/// Marks drawn over an image (the watermark transformer's building blocks).
extension VipsImageRef {
    /// `overlay` drawn over this image with its top-left corner at (`x`, `y`), either of which may
    /// be negative (what hangs over an edge is cut off), its alpha first multiplied by `opacity`
    /// (0...1). Blended as libvips' composite does, premultiplied: colours weighted by alpha, so
    /// that a mark's transparent pixels add none of their colour. The result has this image's
    /// size and bands (an image without alpha stays without), 8 bits.
    public func placing(_ overlay: VipsImageRef, x: Int, y: Int, opacity: Double) throws(VipsError) -> VipsImageRef {
        let mark = try overlay.withAlpha()
        let markBands = mark.bands
        // In floating point (the alpha scaled there), rounded back to 8 bits: libvips' composite
        // of 8-bit images truncates, so a transparent mark would take 1 off pixels of partial alpha.
        let weighted = try mark.linear(
            multipliers: Array(repeating: 1, count: markBands - 1) + [min(1, max(0, opacity))], addends: Array(repeating: 0, count: markBands)
        )
        let base = try withAlpha().cast(to: .float)
        let blended = try base.blending(weighted, mode: .over, x: x, y: y)
        let eightBit = try blended.linear(
            multipliers: Array(repeating: 1, count: base.bands), addends: Array(repeating: 0.5, count: base.bands)
        ).cast(to: .uchar)
        return hasAlpha ? eightBit : try eightBit.extractingBands(from: 0, count: bands)
    }

    /// This image repeated `across` times left to right and `down` times top to bottom: lazy,
    /// each tile computed from the one image.
    public func replicated(across: Int, down: Int) throws(VipsError) -> VipsImageRef {
        try call("replicate", "across=\(across),down=\(down)")
    }
}
