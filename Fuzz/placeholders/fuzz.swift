// The placeholder strings an app receives from elsewhere (its API, a database, /info): a
// BlurHash (`BlurHash(_:)`, Base83), a ThumbHash's bytes (`ThumbHash(_:)`) and its base64 form,
// a perceptual hash's hex. Each parse either throws `ImageAnalysisError` or gives a value whose
// decode paints an image of the asked size, whose string form reads back as the same value.
import Foundation
import WebImage
import FuzzerMain

@main enum Target {
    static func main() { runFuzzer(fuzz) }
}

func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: start, count: count)
    let data = Data(bytes)
    let text = String(decoding: bytes, as: UTF8.self)
    if let hash = try? BlurHash(text) {
        precondition((1...9).contains(hash.xComponents) && (1...9).contains(hash.yComponents))
        precondition((try? BlurHash(hash.string)) == hash, "a BlurHash's string reads back as itself")
        // The first byte picks a small size: the decode paints every pixel of it.
        let side = CGFloat(1 + Int(bytes.first ?? 0) % 24)
        let image = try? Image(blurHash: hash, size: CGSize(width: side, height: side + 1))
        precondition(image?.pixelWidth == Int(side) && image?.pixelHeight == Int(side) + 1)
        _ = hash.averageColor
    }
    if let hash = try? ThumbHash(data) {
        let image = Image(thumbHash: hash)
        precondition((1...32).contains(image.pixelWidth) && (1...32).contains(image.pixelHeight), "\(image.pixelWidth)x\(image.pixelHeight)")
        precondition((try? ThumbHash(base64: hash.base64)) == hash, "a ThumbHash's base64 reads back as itself")
        precondition(hash.approximateAspectRatio.isFinite && hash.approximateAspectRatio > 0)
        _ = hash.averageColor
    }
    if let hash = try? ThumbHash(base64: text) {
        _ = Image(thumbHash: hash)
    }
    if let hash = try? PerceptualHash(hexString: text) {
        precondition(PerceptualHash(value: hash.value).hexString == hash.hexString && hash.distance(to: hash) == 0)
    }
    return 0
}
