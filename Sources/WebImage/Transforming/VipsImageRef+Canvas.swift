import LibVips

extension VipsImageRef {
    /// This image at (`x`, `y`) on a `width` x `height` canvas of `background`: an alpha band
    /// is added when the background is not opaque. Lazy, never a bitmap.
    func embedded(x: Int, y: Int, width: Int, height: Int, background: RGBA8) throws(VipsError) -> VipsImageRef {
        let base = try background.alpha < 255 ? withAlpha() : self
        var values = "\(background.red) \(background.green) \(background.blue)"
        if base.hasAlpha { values += " \(background.alpha)" }
        return try base.call("embed", "x=\(x),y=\(y),width=\(width),height=\(height),extend=background,background=\(values)")
    }
}
