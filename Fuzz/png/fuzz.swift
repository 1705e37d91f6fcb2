// Our PNG readers: the compressed-metadata walk (DecodeCost), the readers for whole 8-bit files
// (LibPNG: ours on libdeflate, checked against libpng's pull reader, which must give the same
// samples for every file ours reads), and libpng's push reader (PNGStreamDecoder) fed in two pieces.
import Foundation
import ImageEngine
import FuzzerMain

@main enum Target {
    static func main() { runFuzzer(fuzz) }
}

func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    precondition(DecodeCost.pngInflatedMetadataBytes(in: data, countingUpTo: 1 << 20) <= (1 << 20) + 16384)
    let libpng = try? LibPNG.decode(data, maxPixels: 1 << 20, allowsAlpha: true, colourProfile: nil, reader: .libpngOnly)
    if let pixels = libpng {
        precondition(pixels.width * pixels.height <= 1 << 20)
        // A thumbnail from the thread's scratch bitmap is the whole bitmap resized.
        let size = (width: max(1, pixels.width / 2), height: max(1, pixels.height / 3))
        let thumbnail = try? LibPNG.thumbnail(data, maxPixels: 1 << 20, size: size, orientation: 1, hasAlpha: true, colourProfile: nil)
        if let whole = try? pixels.resampled(to: size, hasAlpha: true) {
            guard let thumbnail else { preconditionFailure("the thumbnail of a file libpng reads failed") }
            precondition(thumbnail.withUnsafeBytes { a in whole.withUnsafeBytes { b in a.elementsEqual(b) } }, "thumbnail and resize differ")
        }
    }
    if let ours = try? LibPNG.decode(data, maxPixels: 1 << 20, allowsAlpha: true, colourProfile: nil, reader: .oursOnly) {
        guard let libpng else { preconditionFailure("ours reads a file libpng refuses") }
        precondition(ours.width == libpng.width && ours.height == libpng.height)
        precondition(ours.withUnsafeBytes { a in libpng.withUnsafeBytes { b in a.elementsEqual(b) } }, "ours and libpng differ")
    }
    if let stream = PNGStreamDecoder(maxPixels: 1 << 20) {
        let half = count / 2
        if stream.feed(data.prefix(half)), stream.feed(data.dropFirst(half)), stream.hasRows {
            _ = stream.snapshot()
        }
    }
    return 0
}
