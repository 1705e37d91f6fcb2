// Our PNG readers: the compressed-metadata walk (DecodeCost), libpng's pull reader for whole
// 8-bit files (LibPNG), and its push reader (PNGStreamDecoder) fed in two pieces.
import Foundation
import LibVips

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    precondition(DecodeCost.pngInflatedMetadataBytes(in: data, countingUpTo: 1 << 20) <= (1 << 20) + 16384)
    if let pixels = try? LibPNG.decode(data, maxPixels: 1 << 20, allowsAlpha: true, colourProfile: nil) {
        precondition(pixels.width * pixels.height <= 1 << 20)
    }
    if let stream = PNGStreamDecoder(maxPixels: 1 << 20) {
        let half = count / 2
        if stream.feed(data.prefix(half)), stream.feed(data.dropFirst(half)), stream.hasRows {
            _ = stream.snapshot()
        }
    }
    return 0
}
