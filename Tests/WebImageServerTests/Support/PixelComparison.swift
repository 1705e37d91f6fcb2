import WebImage
import WebImageTestSupport

/// How far apart two images of one size are.
enum PixelComparison {
    /// The largest difference of one RGBA sample.
    static func largestDifference(_ first: WebImage.Image, _ second: WebImage.Image) throws -> Int {
        guard first.pixelWidth == second.pixelWidth, first.pixelHeight == second.pixelHeight else { return Int.max }
        return try first.withUnsafeRGBA8Bytes { a in
            try second.withUnsafeRGBA8Bytes { b in
                SampleDifference(a, bands: 4, b, bands: 4, pixels: first.pixelWidth * first.pixelHeight, channels: 4).largest
            }
        }
    }
}
