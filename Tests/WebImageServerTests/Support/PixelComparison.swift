import WebImage

/// How far apart two images of one size are.
enum PixelComparison {
    /// The largest difference of one RGBA sample.
    static func largestDifference(_ first: WebImage.Image, _ second: WebImage.Image) throws -> Int {
        guard first.pixelWidth == second.pixelWidth, first.pixelHeight == second.pixelHeight else { return Int.max }
        return try first.withUnsafeRGBA8Bytes { a in
            try second.withUnsafeRGBA8Bytes { b in zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0 }
        }
    }
}
