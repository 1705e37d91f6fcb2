import Foundation
import ImageEngine
import Testing
import WebImage

/// How two images of the same size differ over their RGB samples (alpha ignored).
struct PixelDifference: CustomStringConvertible {
    /// The largest difference of one sample.
    var largest = 0
    /// The mean difference per sample.
    var mean = 0.0
    /// Samples more than `tolerance` apart.
    var over = 0

    init(_ image: WebImage.Image, _ reference: PixelBuffer, tolerance: Int = 3) throws {
        try #require(reference.width == image.pixelWidth && reference.height == image.pixelHeight && reference.bands >= 3)
        let rows = reference.height
        try image.withUnsafeRGBA8Bytes { ours in
            reference.withUnsafeBytes { theirs in
                accumulate(ours, bands: 4, theirs, bands: reference.bands, pixels: reference.width * rows, tolerance: tolerance)
            }
        }
    }

    init(_ image: WebImage.Image, _ reference: WebImage.Image, tolerance: Int = 3) throws {
        try #require(reference.pixelWidth == image.pixelWidth && reference.pixelHeight == image.pixelHeight)
        try image.withUnsafeRGBA8Bytes { ours in
            try reference.withUnsafeRGBA8Bytes { theirs in
                accumulate(ours, bands: 4, theirs, bands: 4, pixels: image.pixelWidth * image.pixelHeight, tolerance: tolerance)
            }
        }
    }

    private mutating func accumulate(
        _ first: UnsafeRawBufferPointer, bands firstBands: Int, _ second: UnsafeRawBufferPointer, bands secondBands: Int,
        pixels: Int, tolerance: Int
    ) {
        var total = 0
        for pixel in 0..<pixels {
            for channel in 0..<3 {
                let delta = abs(Int(first[pixel * firstBands + channel]) - Int(second[pixel * secondBands + channel]))
                largest = max(largest, delta)
                total += delta
                if delta > tolerance { over += 1 }
            }
        }
        mean = pixels > 0 ? Double(total) / Double(pixels * 3) : 0
    }

    var description: String { "largest \(largest), mean \(String(format: "%.3f", mean)), \(over) over tolerance" }
}

extension PixelBuffer {
    /// This RGBA bitmap as an `Image`, to compare or inspect it like decoded ones.
    func image() throws -> WebImage.Image {
        let made: WebImage.Image? = WebImage.Image(rgba8Pixels: withUnsafeBytes { Array($0) }, width: width, height: height)
        return try #require(made)
    }
}
