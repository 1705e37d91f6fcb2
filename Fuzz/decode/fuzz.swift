// The whole decode: ImageCodersManager.shared with a thumbnail asked for and the pixel limit at
// 16 megapixels (every coder, libvips' loaders, TurboJPEG, libpng, our DC decoder and resampler).
import Foundation
import WebImage
import FuzzerMain

@main enum Target {
    static func main() { runFuzzer(fuzz) }
}

func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var options = ImageCoderOptions()
    options.decodeMaxPixelCount = 16_000_000
    options.decodeThumbnailPixelSize = CGSize(width: 64, height: 64)
    if let image = try? ImageCodersManager.shared.decode(Data(bytes: bytes, count: count), options: options) {
        precondition(image.pixelWidth <= 64 && image.pixelHeight <= 64)
        _ = image.pixel(x: 0, y: 0)
    }
    return 0
}
