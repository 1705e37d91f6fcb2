import Foundation
internal import ImageEngine

/// Cuts an area of a given size out of an image where its faces are: the crop contains every
/// face when they fit in it, else the largest face and the others that fit beside it, centred on
/// them; with no face found it is libvips' attention crop (`ImageGravity.smart`'s). Faces are
/// looked for in the first frame, and an animation is cut in the same place on every frame.
/// `GravityCroppingTransformer` with `ImageGravity.faces` is this with `OpenCVFaceDetector.shared`.
public struct FaceCroppingTransformer: ImageTransformer {
    /// The area to keep, in points (pixels times the image's scale); a side of 0 or larger than
    /// the image's keeps the whole side.
    public let size: CGSize
    /// What finds the faces.
    public let detector: any FaceDetecting

    /// A transformer keeping `size` of the image around the faces `detector` finds.
    public init(size: CGSize, detector: any FaceDetecting = OpenCVFaceDetector.shared) {
        self.size = size
        self.detector = detector
    }

    public var transformerKey: String {
        "FaceCroppingTransformer({\(TransformerKey.number(size.width)),\(TransformerKey.number(size.height))},\(detector.detectorKey))"
    }

    public func transformedImage(with image: Image, forKey key: String) -> Image? {
        guard size.width.isFinite, size.height.isFinite, size.width >= 0, size.height >= 0 else { return nil }
        let area = GravityCroppingTransformer.pixelSize(of: size, scale: image.scale, width: image.pixelWidth, height: image.pixelHeight)
        guard area.width < image.pixelWidth || area.height < image.pixelHeight else { return image }
        // A failed detection fails the transform, as a failed decode would: the crop it would
        // have made differs.
        guard let faces = try? detector.faces(in: image) else { return nil }
        guard let box = FaceCropPlacement.focusBox(of: faces, fitting: area) else {
            return GravityCroppingTransformer(size: size, gravity: .smart).transformedImage(with: image, forKey: key)
        }
        let origin = FaceCropPlacement.origin(centredOn: box, area: area, image: (image.pixelWidth, image.pixelHeight))
        return image.cropped(toPixelArea: (origin.x, origin.y, area.width, area.height))
    }
}
