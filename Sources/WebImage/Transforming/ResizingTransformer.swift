import Foundation
internal import ImageEngine

/// Resizes an image (Lanczos-3): SDWebImage's `SDImageResizingTransformer`.
public struct ResizingTransformer: ImageTransformer {
    /// How the image meets the size: SDWebImage's `SDImageScaleMode` (raw values as there).
    public enum ScaleMode: Int, Sendable {
        /// Stretched to exactly the size.
        case fill = 0
        /// Fitted inside the size, aspect kept: the result is the fitted image, no larger than the size.
        case aspectFit = 1
        /// Covers the size, aspect kept, and the centre is cut out: exactly the size.
        case aspectFill = 2
    }

    /// The size, in points (pixels times the image's scale).
    public let size: CGSize
    public let scaleMode: ScaleMode

    /// A transformer resizing to `size` by `scaleMode`.
    public init(size: CGSize, scaleMode: ScaleMode) {
        self.size = size
        self.scaleMode = scaleMode
    }

    public var transformerKey: String {
        "SDImageResizingTransformer({\(TransformerKey.number(size.width)),\(TransformerKey.number(size.height))},\(scaleMode.rawValue))"
    }

    public func transformedImage(with image: Image, forKey key: String) -> Image? {
        let (size, mode) = (size, scaleMode)
        let resample: PixelTransform.BitmapWork = { pixels, hasAlpha, scale in
            guard let plan = ResizePlan(size: size, scale: scale, mode: mode, width: pixels.width, height: pixels.height),
                  plan.scaled.width <= pixels.width, plan.scaled.height <= pixels.height,
                  pixels.width * pixels.height <= BitmapThumbnail.maxPixelCount,
                  let scaled = try? pixels.resampled(to: plan.scaled, hasAlpha: hasAlpha)
            else { return nil }
            return plan.crop.map { scaled.cropped(x: $0.x, y: $0.y, width: $0.width, height: $0.height) } ?? scaled
        }
        // HDR samples: libvips' Lanczos-3 in floating point, premultiplied when there is alpha.
        let sixteenBit: PixelTransform.SixteenBitStep = { image, scale, _ throws(VipsError) in
            guard let plan = ResizePlan(size: size, scale: scale, mode: mode, width: image.width, height: image.height) else {
                throw VipsError("resize: the size is empty")
            }
            let horizontal = Double(plan.scaled.width) / Double(image.width)
            let vertical = Double(plan.scaled.height) / Double(image.height)
            var resized = try image.premultipliedInFloat(to: .ushort) { colours throws(VipsError) in
                try colours.cast(to: .float).resized(horizontalScale: horizontal, verticalScale: vertical)
            }.cast(to: .ushort)
            if let crop = plan.crop {
                resized = try resized.extractingArea(x: crop.x, y: crop.y, width: crop.width, height: crop.height)
            }
            return resized
        }
        return image.transformed(by: PixelTransform(bitmap: resample, sixteenBit: sixteenBit) { image, scale throws(VipsError) in
            guard let plan = ResizePlan(size: size, scale: scale, mode: mode, width: image.width, height: image.height) else {
                throw VipsError("resize: the size is empty")
            }
            var resized: VipsImageRef
            if plan.scaled.width <= image.width, plan.scaled.height <= image.height,
               image.width * image.height <= BitmapThumbnail.maxPixelCount {
                // Our resampler, strip by strip: a decoded image's pixels, at a fraction of the
                // cost of libvips' resize.
                resized = try image.resampled(width: plan.scaled.width, height: plan.scaled.height, premultiply: image.hasAlpha)
                if !image.hasAlpha { resized = try resized.alphaBand(adding: false) }
            } else {
                let horizontal = Double(plan.scaled.width) / Double(image.width)
                let vertical = Double(plan.scaled.height) / Double(image.height)
                // In floating point, alpha or not, as our resampler keeps its sums: libvips 8.14
                // resizes 8-bit images with 6-bit weights (its vector path) and clips between its
                // passes, up to 11 levels away from our resampler.
                resized = try image.premultipliedInFloat { colours throws(VipsError) in
                    try colours.cast(to: .float).resized(horizontalScale: horizontal, verticalScale: vertical)
                }
                resized = try resized.eightBit()
            }
            if let crop = plan.crop {
                resized = try resized.extractingArea(x: crop.x, y: crop.y, width: crop.width, height: crop.height)
            }
            return resized
        })
    }
}

/// The pixel sizes a resize goes through: the scaled image, then the centre cut out of it
/// (aspect fill only).
struct ResizePlan {
    let scaled: (width: Int, height: Int)
    let crop: (x: Int, y: Int, width: Int, height: Int)?

    /// Nil when the box or the image is empty.
    init?(size: CGSize, scale: Double, mode: ResizingTransformer.ScaleMode, width: Int, height: Int) {
        let box = CGSize(width: size.width * scale, height: size.height * scale).pixelBox(rounding: .toNearestOrAwayFromZero)
        guard box.width > 0, box.height > 0, width > 0, height > 0 else { return nil }
        let horizontal = Double(box.width) / Double(width)
        let vertical = Double(box.height) / Double(height)
        func side(_ length: Int, _ factor: Double) -> Int { max(1, Int((Double(length) * factor).rounded())) }
        switch mode {
        case .fill:
            scaled = box
            crop = nil
        case .aspectFit:
            let factor = min(horizontal, vertical)
            scaled = (min(box.width, side(width, factor)), min(box.height, side(height, factor)))
            crop = nil
        case .aspectFill:
            let factor = max(horizontal, vertical)
            scaled = (max(box.width, side(width, factor)), max(box.height, side(height, factor)))
            crop = ((scaled.width - box.width) / 2, (scaled.height - box.height) / 2, box.width, box.height)
        }
    }
}
