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

    /// `overlay` drawn onto this image with libvips' blend `mode` ("over", "dest-in", ...).
    public func composited(with overlay: VipsImageRef, mode: String) throws(VipsError) -> VipsImageRef {
        try withAlpha().call("composite2", with: overlay, names: ("base", "overlay"), "mode=\(mode)")
    }
}
