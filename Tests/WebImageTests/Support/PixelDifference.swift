import Foundation
import ImageEngine
import WebImageTestSupport
import Testing
import WebImage

/// How two images of the same size differ over their RGB samples (alpha ignored): the largest
/// difference of one sample, the mean, and the samples more than a tolerance apart.
struct PixelDifference: CustomStringConvertible {
    let samples: SampleDifference
    var largest: Int { samples.largest }
    var mean: Double { samples.mean }
    var over: Int { samples.over }

    init(_ image: WebImage.Image, _ reference: PixelBuffer, tolerance: Int = 3) throws {
        try #require(reference.width == image.pixelWidth && reference.height == image.pixelHeight && reference.bands >= 3)
        samples = try image.withUnsafeRGBA8Bytes { ours in
            reference.withUnsafeBytes { theirs in
                SampleDifference(ours, bands: 4, theirs, bands: reference.bands, pixels: reference.width * reference.height, channels: 3, tolerance: tolerance)
            }
        }
    }

    init(_ image: WebImage.Image, _ reference: WebImage.Image, tolerance: Int = 3) throws {
        try #require(reference.pixelWidth == image.pixelWidth && reference.pixelHeight == image.pixelHeight)
        samples = try image.withUnsafeRGBA8Bytes { ours in
            try reference.withUnsafeRGBA8Bytes { theirs in
                SampleDifference(ours, bands: 4, theirs, bands: 4, pixels: image.pixelWidth * image.pixelHeight, channels: 3, tolerance: tolerance)
            }
        }
    }

    var description: String { samples.description }
}

extension PixelBuffer {
    /// This RGBA bitmap as an `Image`, to compare or inspect it like decoded ones.
    func image() throws -> WebImage.Image {
        let made: WebImage.Image? = WebImage.Image(rgba8Pixels: withUnsafeBytes { Array($0) }, width: width, height: height)
        return try #require(made)
    }
}
