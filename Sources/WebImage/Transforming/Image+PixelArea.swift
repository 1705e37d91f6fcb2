internal import ImageEngine

extension Image {
    /// This image cut to `area` (pixels), every frame of an animation at the same place; the
    /// image itself when `area` is all of it. A frame too small for the area reads as nil.
    func cropped(toPixelArea area: (x: Int, y: Int, width: Int, height: Int)) -> Image? {
        guard area.width < pixelWidth || area.height < pixelHeight else { return self }
        return transformed(by: PixelTransform(movesPixelsOnly: true) { image, _ throws(VipsError) in
            guard area.x + area.width <= image.width, area.y + area.height <= image.height else {
                throw VipsError("the area lies outside the frame")
            }
            return try image.extractingArea(x: area.x, y: area.y, width: area.width, height: area.height)
        })
    }

    /// This image's first frame as libvips sees a file of it: its decoded pixels (kept by a
    /// still image for the steps after), without an alpha band when it is opaque. For
    /// transformers that look at the pixels before deciding where to cut.
    func firstFramePixels() throws -> VipsImageRef {
        guard let first = frame(at: 0) else { throw VipsError("the first frame cannot be decoded") }
        var pixels = try VipsImageRef.wrapping(first.renderedPixels())
        if !first.hasAlpha, pixels.hasAlpha { pixels = try pixels.alphaBand(adding: false) }
        return pixels
    }
}
