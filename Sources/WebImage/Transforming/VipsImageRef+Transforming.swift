import LibVips

/// libvips building blocks the transformers share.
extension VipsImageRef {
    /// `body` run on the colours premultiplied by alpha in floating point when the image has
    /// alpha, so that resampling does not bleed the colour of transparent pixels into visible
    /// ones; back to straight 8-bit after (`premultipliedEightBit()` stays in 8 bits).
    func premultipliedInFloat(_ body: (VipsImageRef) throws(VipsError) -> VipsImageRef) throws(VipsError) -> VipsImageRef {
        guard hasAlpha else { return try body(self) }
        return try body(call("premultiply")).call("unpremultiply").call("cast", "format=uchar")
    }

    /// An image of this one's size filled with `colour` (alpha included): lazy, never a bitmap.
    func filled(with colour: RGBA8) throws(VipsError) -> VipsImageRef {
        let values = "\(colour.red) \(colour.green) \(colour.blue) \(colour.alpha)"
        return try withAlpha().call("linear", "a=0 0 0 0,b=\(values)").call("cast", "format=uchar")
    }

    /// `overlay` drawn onto this image with libvips' blend `mode` ("over", "dest-in", ...).
    func composited(with overlay: VipsImageRef, mode: String) throws(VipsError) -> VipsImageRef {
        try withAlpha().call("composite2", with: overlay, names: ("base", "overlay"), "mode=\(mode)")
    }
}
