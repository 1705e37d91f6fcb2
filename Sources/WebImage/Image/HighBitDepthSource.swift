internal import ImageEngine

/// How an image decoded with `decodeToHDR` makes its 10-, 12- or 16-bit samples, unconverted:
/// a libvips pipeline over the encoded bytes (the loader, then the thumbnail's resize and the
/// turn upright its 8-bit rendition had), its code of full signal, and the colour encoding the
/// source declared (nil: none, the samples are as the file holds them).
struct HighBitDepthSource: Sendable {
    let build: @Sendable () throws(VipsError) -> VipsImageRef
    let signalMax: Int
    let encoding: ColourEncoding?

    /// The samples as 16-bit RGB or RGBA, full signal at 65535.
    func samples() throws(VipsError) -> SixteenBitSamples {
        try build().renderSixteenBit(signalMax: signalMax)
    }
}
