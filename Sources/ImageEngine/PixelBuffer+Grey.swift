extension PixelBuffer {
    /// True when every pixel's colour bands are equal (red = green = blue), so that one band
    /// holds the colour: what a grey source keeps through transforms that add no colour.
    /// Images of one or two bands are grey by their layout.
    public var isGrey: Bool {
        guard bands >= 3 else { return true }
        return withUnsafeBytes { bytes in
            for row in 0..<height {
                // Differences gathered over a row without a branch; a colour image ends at its first.
                var differences: UInt8 = 0
                var index = row * rowBytes
                let end = index + rowBytes
                while index < end {
                    differences |= (bytes[index] ^ bytes[index + 1]) | (bytes[index + 1] ^ bytes[index + 2])
                    index += bands
                }
                if differences != 0 { return false }
            }
            return true
        }
    }

    /// True when every pixel's red equals its blue and its green is within one of them: a
    /// picture without colour as libwebp decodes it (its YUV to RGB conversion of neutral chroma
    /// rounds green one below red and blue for some luma values). Blue then holds the grey.
    public var isGreyUpToYUVRounding: Bool {
        guard bands >= 3 else { return true }
        return withUnsafeBytes { bytes in
            for row in 0..<height {
                var index = row * rowBytes
                let end = index + rowBytes
                while index < end {
                    let (red, green, blue) = (bytes[index], bytes[index + 1], bytes[index + 2])
                    if red != blue || (green != red && green &+ 1 != red && green != red &+ 1) { return false }
                    index += bands
                }
            }
            return true
        }
    }
}
