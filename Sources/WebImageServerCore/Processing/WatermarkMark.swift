import Crypto
import Foundation
import WebImage

/// The server's watermark (`WATERMARK_DATA`, `_PATH` or `_URL`), decoded once: the image the
/// `watermark` option draws, and what identifies it in result keys.
struct WatermarkMark: Sendable {
    /// The mark's first frame, decoded (every request's transformer reuses its pixels).
    let image: Image
    /// `WATERMARK_OPACITY`: multiplies each request's opacity.
    let baseOpacity: Double
    /// A digest of the mark's bytes and `baseOpacity`: part of the key of every result that draws
    /// the mark, so that a changed mark or opacity is never answered from an older result.
    let identity: String

    /// The mark in `data`, with `baseOpacity`; nil when `data` is not an image this server
    /// decodes.
    init?(data: Data, baseOpacity: Double) {
        BlockingCheck.note("a mark of \(data.count) bytes")
        var decoding = ImageCoderOptions()
        decoding.decodeFirstFrameOnly = true
        guard let decoded = try? ImageCodersManager.shared.decode(data, options: decoding).decoded() else { return nil }
        image = decoded
        self.baseOpacity = baseOpacity
        let digest = SHA256.hash(data: data).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        identity = "sha256:\(digest) opacity:\(ProcessingOptions.number(baseOpacity))"
    }

    /// The transformer drawing the mark as `options` ask, on a result whose `dpr` became
    /// `dprScale` (pixel offsets are multiplied by it, as imgproxy does); nil when they ask for none.
    func transformer(for options: ProcessingOptions, dprScale: Double) -> WatermarkTransformer? {
        let asked = options.watermark
        guard asked.opacity > 0 else { return nil }
        func offset(_ value: Double) -> ImageGravity.Offset {
            switch GravityNames.offset(value) {
            case .points(let pixels): .points((pixels * dprScale).rounded(.toNearestOrEven))
            case .fraction(let fraction): .fraction(fraction)
            }
        }
        let position: WatermarkTransformer.Position = switch asked.position {
        case .anchor(let anchor): .gravity(.anchor(anchor, x: offset(asked.x), y: offset(asked.y)))
        case .tiled: .tiled(horizontalSpacing: offset(asked.x), verticalSpacing: offset(asked.y))
        }
        return WatermarkTransformer(mark: image, opacity: asked.opacity * baseOpacity, position: position, scale: asked.scale)
    }
}
