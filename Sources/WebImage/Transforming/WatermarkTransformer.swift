import Foundation
internal import ImageEngine

/// Draws a mark (a logo, a signature) over an image, last: imgproxy's `watermark`. The mark is
/// blended premultiplied (its transparent pixels add none of their colour) at `opacity`; every
/// frame of an animation gets it at the same place. The mark's first frame is decoded once, when
/// the transformer is made, and sized once for each image it marks.
public struct WatermarkTransformer: ImageTransformer {
    /// Where the mark goes.
    public enum Position: Sendable, Hashable {
        /// One mark, placed by the gravity as an area in the image (its offsets move it inwards
        /// from its anchor); a mark larger than the image, or moved past an edge, hangs over it
        /// and is cut off there (it always covers a pixel at least).
        case gravity(ImageGravity)
        /// Marks repeated over the whole image, centred on it, with gaps of the spacings between
        /// them (imgproxy's `re`): points, or fractions of the image's sides.
        case tiled(horizontalSpacing: ImageGravity.Offset = .points(0), verticalSpacing: ImageGravity.Offset = .points(0))
    }

    /// The mark as given (its first frame is drawn).
    public let mark: Image
    /// How opaque the mark is drawn, 0...1 (its own alpha multiplied by this); 0 leaves the
    /// image as it is.
    public let opacity: Double
    public let position: Position
    /// The mark's size as a fraction of the image's: fitted (aspect kept, enlarged if need be)
    /// into the image's width and height times `scale`; 0 draws it at its own size (its points
    /// at the image's scale).
    public let scale: Double
    /// The mark's first frame, decoded; nil when it cannot be.
    private let markStill: Image?

    /// A transformer drawing `mark` at `opacity` (clamped to 0...1), placed by `position`, sized
    /// by `scale` (0: the mark's own size). The mark's first frame is decoded here (once: an
    /// image keeps its pixels); one that cannot be decoded makes every `transformedImage` nil.
    public init(mark: Image, opacity: Double = 1, position: Position = .gravity(.center), scale: Double = 0) {
        self.mark = mark
        self.opacity = opacity.isFinite ? min(1, max(0, opacity)) : 0
        self.position = position
        self.scale = scale.isFinite ? max(0, scale) : 0
        let still = mark.frame(at: 0) ?? mark
        markStill = (try? still.renderedPixels()) == nil ? nil : still
    }

    /// `WatermarkTransformer(<MD5 of the mark's size and pixels>,<opacity>,<position>,<scale>)`:
    /// the digest is computed each time the key is asked for.
    public var transformerKey: String {
        let place: String
        switch position {
        case .gravity(let gravity): place = gravity.transformerKey
        case let .tiled(horizontal, vertical):
            place = "tiled,\(ImageGravity.transformerKey(horizontal)),\(ImageGravity.transformerKey(vertical))"
        }
        var digest = "(unreadable)"
        if let markStill, let pixels = try? markStill.renderedPixels() {
            let size = "\(pixels.width)x\(pixels.height)@\(TransformerKey.number(markStill.scale))"
            digest = pixels.withUnsafeBytes { bytes in
                MD5.digest(Array(size.utf8) + Array(bytes)).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            }
        }
        return "WatermarkTransformer(\(digest),\(TransformerKey.number(opacity)),\(place),\(TransformerKey.number(scale)))"
    }

    public func transformedImage(with image: Image, forKey key: String) -> Image? {
        guard opacity > 0 else { return image }
        guard let markStill else { return nil }
        let (opacity, position) = (opacity, position)
        // Sized (and, tiled, given its gaps) once here for every frame: the frames share a size.
        let size = markSize(markStill, width: image.pixelWidth, height: image.pixelHeight, scale: image.scale)
        var sized = markStill
        if size.width != markStill.pixelWidth || size.height != markStill.pixelHeight {
            let points = CGSize(width: Double(size.width) / markStill.scale, height: Double(size.height) / markStill.scale)
            guard let resized = ResizingTransformer(size: points, scaleMode: .fill).transformedImage(with: markStill, forKey: "") else { return nil }
            sized = resized
        }
        let prepared: PixelBuffer
        do {
            prepared = try spaced(try VipsImageRef.wrapping(try sized.renderedPixels()), width: image.pixelWidth, height: image.pixelHeight, scale: image.scale).render()
        } catch {
            return nil
        }
        return image.transformed(by: PixelTransform { image, scale throws(VipsError) in
            let mark = try VipsImageRef.wrapping(prepared)
            switch position {
            case .gravity(let gravity):
                let origin = gravity.origin(
                    inner: (mark.width, mark.height), outer: (image.width, image.height), scale: scale, overhanging: true
                )
                return try image.placing(mark, x: origin.x, y: origin.y, opacity: opacity)
            case .tiled:
                // An odd number of tiles each way, the middle one centred (imgproxy's replicate).
                func tiles(_ side: Int, _ tile: Int) -> Int {
                    let count = (side + tile - 1) / tile
                    return count % 2 == 0 ? count + 1 : count
                }
                let across = tiles(image.width, mark.width), down = tiles(image.height, mark.height)
                let tiled = try mark.replicated(across: across, down: down).extractingArea(
                    x: (across * mark.width - image.width) / 2, y: (down * mark.height - image.height) / 2,
                    width: image.width, height: image.height
                )
                return try image.placing(tiled, x: 0, y: 0, opacity: opacity)
            }
        })
    }

    /// The mark with the gaps of tiling around it (half before, half after), transparent, on a
    /// `width` x `height` image of `scale`; as it is when placed by a gravity. A gap is at most the
    /// image's side: a wider one also leaves one mark, centred, that way (and a gap from a URL
    /// never becomes a huge bitmap).
    private func spaced(_ mark: VipsImageRef, width: Int, height: Int, scale: Double) throws(VipsError) -> VipsImageRef {
        guard case let .tiled(horizontal, vertical) = position else { return mark }
        let gapX = min(width, max(0, ImageGravity.pixels(horizontal, side: width, scale: scale)))
        let gapY = min(height, max(0, ImageGravity.pixels(vertical, side: height, scale: scale)))
        guard gapX > 0 || gapY > 0 else { return mark }
        return try mark.embedded(
            x: gapX / 2, y: gapY / 2, width: mark.width + gapX, height: mark.height + gapY, backgroundRGBA: (0, 0, 0, 0)
        )
    }

    /// The size in pixels of `mark` on a `width` x `height` image of `scale`: its own (its points
    /// at the image's scale), or fitted into the image's sides times `self.scale`, enlarged if
    /// need be (imgproxy's: the box's sides rounded half to even, the fitted size rounded, 1
    /// pixel at least).
    private func markSize(_ mark: Image, width: Int, height: Int, scale: Double) -> (width: Int, height: Int) {
        func pixels(_ value: Double) -> Int { value.isFinite ? max(1, min(Int(Int32.max), Int(value.rounded()))) : 1 }
        let (markWidth, markHeight) = (Double(mark.pixelWidth), Double(mark.pixelHeight))
        guard self.scale > 0 else {
            let factor = scale / mark.scale
            return (pixels(markWidth * factor), pixels(markHeight * factor))
        }
        let boxWidth = max(1, (Double(width) * self.scale).rounded(.toNearestOrEven))
        let boxHeight = max(1, (Double(height) * self.scale).rounded(.toNearestOrEven))
        let factor = min(boxWidth / markWidth, boxHeight / markHeight)
        return (pixels(markWidth * factor), pixels(markHeight * factor))
    }
}
