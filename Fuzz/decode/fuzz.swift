// The whole decode: ImageCodersManager.shared with a thumbnail asked for and the pixel limit at
// 16 megapixels (every coder, libvips' loaders, TurboJPEG, libpng, our DC decoder and resampler);
// then within a megapixel at full size (our progressive JPEG and still WebP readers where
// TurboJPEG does not take the file), and again under a time budget that stops it midway (the
// way out of libjpeg's progress monitor and of libwebp's row jobs: no leak, no half image).
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
    let data = Data(bytes: bytes, count: count)
    if let image = try? ImageCodersManager.shared.decode(data, options: options) {
        precondition(image.pixelWidth <= 64 && image.pixelHeight <= 64)
        _ = image.pixel(x: 0, y: 0)
    }
    var full = ImageCoderOptions()
    full.decodeMaxPixelCount = 1_000_000
    _ = try? ImageCodersManager.shared.decode(data, options: full).pixel(x: 0, y: 0)
    full.decodeTimeBudget = DecodeTimeBudget(thumbnail: .microseconds(200), fullSize: .microseconds(200), animation: .microseconds(200))
    _ = try? ImageCodersManager.shared.decode(data, options: full).pixel(x: 0, y: 0)
    return 0
}
