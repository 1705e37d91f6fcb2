import Foundation
internal import ImageEngine

/// Cuts an area of a given size out of an image, placed by a gravity: imgproxy's crop and
/// `gravity`, libvips' smartcrop for `.smart`, the faces `OpenCVFaceDetector.shared` finds for
/// `.faces` (`FaceCroppingTransformer`). An animation is cut in the same place on every frame
/// (for `.smart` and `.faces`, where the first frame puts it).
public struct GravityCroppingTransformer: ImageTransformer {
    /// The area to keep, in points (pixels times the image's scale); a side of 0 or larger than
    /// the image's keeps the whole side.
    public let size: CGSize
    /// Where the area is cut.
    public let gravity: ImageGravity

    /// A transformer keeping `size` of the image, placed by `gravity`.
    public init(size: CGSize, gravity: ImageGravity = .center) {
        self.size = size
        self.gravity = gravity
    }

    public var transformerKey: String {
        "GravityCroppingTransformer({\(TransformerKey.number(size.width)),\(TransformerKey.number(size.height))},\(gravity.transformerKey))"
    }

    public func transformedImage(with image: Image, forKey key: String) -> Image? {
        let (size, gravity) = (size, gravity)
        guard size.width.isFinite, size.height.isFinite, size.width >= 0, size.height >= 0 else { return nil }
        if gravity == .faces {
            return FaceCroppingTransformer(size: size).transformedImage(with: image, forKey: key)
        }
        guard gravity == .smart else {
            return image.transformed(by: PixelTransform(movesPixelsOnly: true) { image, scale throws(VipsError) in
                let area = Self.pixelSize(of: size, scale: scale, width: image.width, height: image.height)
                guard area.width < image.width || area.height < image.height else { return image }
                let origin = gravity.origin(inner: area, outer: (image.width, image.height), scale: scale)
                return try image.extractingArea(x: origin.x, y: origin.y, width: area.width, height: area.height)
            })
        }
        // Decided once, on the first frame's pixels (decoded for it, as imgproxy copies the
        // image to memory first: smartcrop reads it more than once); a still image keeps them
        // for the cut.
        guard let pixels = try? image.firstFramePixels() else { return nil }
        let area = Self.pixelSize(of: size, scale: image.scale, width: pixels.width, height: pixels.height)
        guard area.width < pixels.width || area.height < pixels.height else { return image }
        guard let origin = try? pixels.smartCropOrigin(width: area.width, height: area.height, interesting: "attention") else { return nil }
        return image.cropped(toPixelArea: (origin.x, origin.y, area.width, area.height))
    }

    /// `size` in whole pixels within a `width` x `height` image: sides of 0 or past the image's
    /// are the image's.
    static func pixelSize(of size: CGSize, scale: Double, width: Int, height: Int) -> (width: Int, height: Int) {
        func side(_ points: Double, _ limit: Int) -> Int {
            let pixels = (points * scale).rounded()
            return pixels >= 1 && pixels < Double(limit) ? Int(pixels) : limit
        }
        return (side(Double(size.width), width), side(Double(size.height), height))
    }
}
