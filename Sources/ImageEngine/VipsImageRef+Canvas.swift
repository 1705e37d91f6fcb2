extension VipsImageRef {
    /// This image at (`x`, `y`) on a `width` x `height` canvas of the colour `background`: an
    /// alpha band is added when the background is not opaque. Lazy, never a bitmap.
    public func embedded(
        x: Int, y: Int, width: Int, height: Int, backgroundRGBA background: (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8)
    ) throws(VipsError) -> VipsImageRef {
        let base = try background.alpha < 255 ? withAlpha() : self
        var values = [Double(background.red), Double(background.green), Double(background.blue)]
        if base.hasAlpha { values.append(Double(background.alpha)) }
        return try base.embedded(x: x, y: y, width: width, height: height, background: values)
    }
}
