extension ImageAnalysis {
    /// The mean colour of the image.
    ///
    /// With `ignoringTransparent` (the default, as imgproxy's `average:1:1`), each pixel's colour
    /// counts by its alpha: fully transparent pixels, whose colour is invisible and often
    /// arbitrary, not at all; the alpha returned is the mean alpha. An image with no visible
    /// pixel gives `RGBA8.clear`. Without, every pixel counts the same, alpha included.
    public func averageColor(ignoringTransparent: Bool = true) -> RGBA8 {
        // 64-bit sums: 100x100 pixels at 255 x 255 need 30 bits, a margin for larger copies.
        var sums = (red: 0, green: 0, blue: 0, alpha: 0)
        var weighted = (red: 0, green: 0, blue: 0)
        rgba.withUnsafeBufferPointer { pixels in
            for offset in stride(from: 0, to: pixels.count, by: 4) {
                let alpha = Int(pixels[offset + 3])
                sums.red += Int(pixels[offset])
                sums.green += Int(pixels[offset + 1])
                sums.blue += Int(pixels[offset + 2])
                sums.alpha += alpha
                weighted.red += Int(pixels[offset]) * alpha
                weighted.green += Int(pixels[offset + 1]) * alpha
                weighted.blue += Int(pixels[offset + 2]) * alpha
            }
        }
        let count = pixelCount
        func mean(_ sum: Int, _ divisor: Int) -> UInt8 { UInt8(min(255, (sum + divisor / 2) / divisor)) }
        let alpha = mean(sums.alpha, count)
        guard ignoringTransparent else {
            return RGBA8(red: mean(sums.red, count), green: mean(sums.green, count), blue: mean(sums.blue, count), alpha: alpha)
        }
        guard sums.alpha > 0 else { return .clear }
        return RGBA8(
            red: mean(weighted.red, sums.alpha), green: mean(weighted.green, sums.alpha), blue: mean(weighted.blue, sums.alpha),
            alpha: alpha
        )
    }
}
