import Foundation
import Testing
@testable import WebImage

/// The repository images the analyses are checked on, and helpers to analyse them.
enum AnalysisImages {
    /// Opaque photos and drawings of every format Pillow reads too, from 80x60 to 18 megapixels,
    /// one turned upright by its EXIF orientation and one grey.
    static let opaque = [
        "photos/rocket.jpg", "photos/astronaut.png", "photos/motorcycle_left.png", "photos/retina.jpg",
        "photos/hubble_deep_field.jpg", "photos/camera.png", "sdwebimage/TestImageStatic.webp",
        "sdwebimage/TestImageLarge.jpg", "libjpeg-turbo/testorig.jpg", "exif-orientation/Landscape_6.jpg",
    ]

    /// Images with transparent pixels.
    static let transparent = [
        "sdwebimage/TestImage.png", "webp/lossy_alpha1.webp", "pngsuite/basn6a08.png", "sdwebimage/RGBA16PNG.png",
    ]

    /// The analysis of a test image, from its bytes.
    static func analysis(_ file: String) throws -> ImageAnalysis {
        try ImageAnalysis(data: try TestImages.data(file))
    }

    /// An image of `width` x `height` pixels, each `pixel(x, y)`.
    static func image(width: Int, height: Int, _ pixel: (Int, Int) -> RGBA8) throws -> WebImage.Image {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let p = pixel(x, y)
                bytes += [p.red, p.green, p.blue, p.alpha]
            }
        }
        let image = WebImage.Image(rgba8Pixels: bytes, width: width, height: height)
        return try #require(image)
    }

    /// The RGBA8 bytes of `image`.
    static func rgba(_ image: WebImage.Image) throws -> [UInt8] {
        try image.withUnsafeRGBA8Bytes { Array($0) }
    }
}
