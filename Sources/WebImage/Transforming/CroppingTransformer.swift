import Foundation
internal import ImageEngine

/// Cuts a rectangle out of an image: SDWebImage's `SDImageCroppingTransformer`.
public struct CroppingTransformer: ImageTransformer {
    /// The rectangle to keep, in points (pixels times the image's scale), origin top-left.
    /// Clipped to the image; a rectangle wholly outside it gives nil.
    public let rect: CGRect

    /// A transformer keeping `rect`.
    public init(rect: CGRect) {
        self.rect = rect
    }

    public var transformerKey: String {
        let values = [rect.origin.x, rect.origin.y, rect.size.width, rect.size.height].map { TransformerKey.number(Double($0)) }
        return "SDImageCroppingTransformer({\(values.joined(separator: ","))})"
    }

    public func transformedImage(with image: Image, forKey key: String) -> Image? {
        let rect = rect
        return image.transformed(by: PixelTransform(movesPixelsOnly: true) { image, scale throws(VipsError) in
            guard let area = Self.pixelArea(of: rect, scale: scale, width: image.width, height: image.height) else {
                throw VipsError("the crop rectangle lies outside the image")
            }
            return try image.extractingArea(x: area.x, y: area.y, width: area.width, height: area.height)
        })
    }

    /// `rect` in whole pixels (grown to the pixels it touches, as Core Graphics crops) within
    /// a `width` x `height` image; nil when nothing is left.
    static func pixelArea(of rect: CGRect, scale: Double, width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int)? {
        let edges = [rect.minX, rect.minY, rect.maxX, rect.maxY].map { Double($0) * scale }
        guard rect.width > 0, rect.height > 0, edges.allSatisfy(\.isFinite) else { return nil }
        let left = max(0, edges[0].rounded(.down)), top = max(0, edges[1].rounded(.down))
        let right = min(Double(width), edges[2].rounded(.up)), bottom = min(Double(height), edges[3].rounded(.up))
        guard right > left, bottom > top else { return nil }
        return (Int(left), Int(top), Int(right - left), Int(bottom - top))
    }
}
