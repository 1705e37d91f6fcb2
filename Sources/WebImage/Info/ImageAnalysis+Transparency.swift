extension ImageAnalysis {
    /// Whether any pixel of the copy is not fully opaque (imgproxy's `check_transparency`).
    var hasTranslucentPixel: Bool {
        rgba.withUnsafeBufferPointer { pixels in
            stride(from: 3, to: pixels.count, by: 4).contains { pixels[$0] < 255 }
        }
    }
}
