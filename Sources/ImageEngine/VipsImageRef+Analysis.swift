import CLibvips
import CVipsGlue

/// libvips operations that look at the pixels to decide where to cut: they render what they
/// analyse when called.
extension VipsImageRef {
    /// Where libvips' smartcrop keeps a `width` x `height` area of this image, by `interesting`
    /// (`attention`, `entropy`, `centre`, `low`, `high`, `all`): the area's top-left corner.
    public func smartCropOrigin(width: Int, height: Int, interesting: String) throws(VipsError) -> (x: Int, y: Int) {
        // smartcrop decides while it is built; its output records the cut as a negative offset.
        guard let cut = wi_call_named("smartcrop", "input", pointer, "width=\(width),height=\(height),interesting=\(interesting)") else {
            throw Vips.lastError(or: "smartcrop failed")
        }
        defer { g_object_unref(cut) }
        return (-Int(vips_image_get_xoffset(cut)), -Int(vips_image_get_yoffset(cut)))
    }

    /// libvips' find_trim: the box holding what differs from `background` (a value a band) by
    /// more than `threshold`; an empty box (width or height 0) when nothing does.
    public func trimArea(threshold: Double, background: [Double]) throws(VipsError) -> (x: Int, y: Int, width: Int, height: Int) {
        var (left, top, width, height): (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
        let status = background.withUnsafeBufferPointer { colour in
            wi_find_trim(pointer, threshold, colour.baseAddress, Int32(colour.count), &left, &top, &width, &height)
        }
        guard status == 0 else { throw Vips.lastError(or: "find_trim failed") }
        return (Int(left), Int(top), Int(width), Int(height))
    }
}
