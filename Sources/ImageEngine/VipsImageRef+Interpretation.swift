/// How libvips reads an image's bands, and conversions between colour spaces.
extension VipsImageRef {
    /// A libvips interpretation (`VipsInterpretation`): the colour space of an image's bands
    /// and the range of its samples.
    public enum Interpretation: String, Sendable {
        /// sRGB (or grey) with 8-bit samples: full signal at 255.
        case srgb
        /// sRGB (or grey) with 16-bit samples: full signal (and opaque alpha) at 65535.
        case rgb16
        /// Linear-light sRGB primaries in floating point: 1.0 is white.
        case scrgb
        /// Grey with 8-bit samples (libvips' `B_W`).
        case grey = "b-w"
        /// Grey with 16-bit samples.
        case grey16
    }

    /// This image converted to the colour space `space` (libvips' `colourspace`): the samples
    /// change, and grey gains the colour bands.
    public func inColourSpace(_ space: Interpretation) throws(VipsError) -> VipsImageRef {
        try call("colourspace", "space=\(space.rawValue)")
    }

    /// The same samples, read by libvips' later operations (composite, colourspace,
    /// premultiply) as `interpretation` (libvips' `copy`): nothing is converted.
    public func withInterpretation(_ interpretation: Interpretation) throws(VipsError) -> VipsImageRef {
        try call("copy", "interpretation=\(interpretation.rawValue)")
    }

    /// This 8-bit sRGB image, whose pixels are grey (red = green = blue), as one grey band and
    /// its alpha: savers then write grey files (PNG colour types 0 and 4, one-component JPEG).
    /// Without `withAlpha`, an alpha band this image has is dropped.
    public func keepingGreyBand(withAlpha: Bool) throws(VipsError) -> VipsImageRef {
        // Blue and alpha, the last two bands, are grey and alpha when the colour bands agree.
        let bands = withAlpha && hasAlpha ? try extractingBands(from: 2, count: 2) : try extractingBands(from: 0, count: 1)
        return try bands.withInterpretation(.grey)
    }
}
