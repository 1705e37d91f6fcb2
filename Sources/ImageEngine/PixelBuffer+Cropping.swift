extension PixelBuffer {
    /// A copy of the `width` x `height` area at (`x`, `y`), which must lie inside this bitmap.
    public func cropped(x: Int, y: Int, width: Int, height: Int) -> PixelBuffer {
        let rowBytes = rowBytes
        let bands = bands
        return PixelBuffer(width: width, height: height, bands: bands) { output in
            guard let target = output.baseAddress else { return }
            for row in 0..<height {
                let source = baseAddress + (y + row) * rowBytes + x * bands
                (target + row * width * bands).copyMemory(from: source, byteCount: width * bands)
            }
        }
    }
}
