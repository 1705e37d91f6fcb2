import Foundation
import Testing
import WebImage
import WebImageTestSupport

/// Images the transformer tests start from, in both forms an `Image` takes.
enum TransformInput {
    /// TestImage.png: 300x300 RGBA, transparent background, opaque red-brown body.
    static let alphaImage = "sdwebimage/TestImage.png"
    /// rocket.jpg: a 640x427 opaque photo.
    static let photo = "photos/rocket.jpg"

    /// `file` decoded by libvips into pixels (`lazy` false) or kept a libvips pipeline (`lazy`):
    /// the same pixels either way, so that a transform's two paths can be compared.
    static func image(_ file: String, lazy: Bool = false, scale: Double = 1) throws -> WebImage.Image {
        var options = ImageCoderOptions()
        options.decodeUseLazyDecoding = lazy
        options.decodeScaleFactor = scale
        return try VipsImageCoder.shared.decode(try TestImages.data(file), options: options)
    }

    static func transform(_ image: WebImage.Image, _ transformer: any ImageTransformer) throws -> WebImage.Image {
        try #require(transformer.transformedImage(with: image, forKey: "key"))
    }

    /// Every pixel of `image`, row by row.
    static func pixels(_ image: WebImage.Image) throws -> [RGBA8] {
        try image.withUnsafeRGBA8Bytes { bytes in
            stride(from: 0, to: bytes.count, by: 4).map { RGBA8(red: bytes[$0], green: bytes[$0 + 1], blue: bytes[$0 + 2], alpha: bytes[$0 + 3]) }
        }
    }

    /// The largest difference of one sample between two images of one size, as seen: colours
    /// weighted by alpha (a transparent pixel's colour shows nowhere), and alpha.
    static func largestDifference(_ first: WebImage.Image, _ second: WebImage.Image) throws -> Int {
        try #require(first.pixelWidth == second.pixelWidth && first.pixelHeight == second.pixelHeight)
        return try first.withUnsafeRGBA8Bytes { a in
            try second.withUnsafeRGBA8Bytes { b in
                SampleDifference(a, bands: 4, b, bands: 4, pixels: first.pixelWidth * first.pixelHeight, channels: 4, weightedByAlpha: true).largest
            }
        }
    }

    /// Variance of the luma over every pixel.
    static func lumaVariance(_ image: WebImage.Image) throws -> Double {
        let luma = try pixels(image).map { 0.299 * Double($0.red) + 0.587 * Double($0.green) + 0.114 * Double($0.blue) }
        let mean = luma.reduce(0, +) / Double(luma.count)
        return luma.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(luma.count)
    }
}
