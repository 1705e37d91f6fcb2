import Foundation
internal import ImageEngine

/// Blurs the faces a detector finds with a Gaussian, and leaves the rest of the image as it was
/// (imgproxy Pro's `blur_detections` for faces). Faces are looked for in the first frame; every
/// frame of an animation is blurred in the same boxes. An image with alpha is blurred with its
/// colours premultiplied, as `BlurTransformer` does.
public struct FaceBlurTransformer: ImageTransformer {
    /// The Gaussian's standard deviation, in points (pixels times the image's scale).
    public let sigma: Double
    /// What finds the faces.
    public let detector: any FaceDetecting

    /// A transformer blurring the faces `detector` finds by `sigma` points.
    public init(sigma: Double, detector: any FaceDetecting = OpenCVFaceDetector.shared) {
        self.sigma = sigma
        self.detector = detector
    }

    public var transformerKey: String {
        "FaceBlurTransformer(\(TransformerKey.number(sigma)),\(detector.detectorKey))"
    }

    public func transformedImage(with image: Image, forKey key: String) -> Image? {
        guard sigma.isFinite, sigma > 0 else { return image }
        // A failed detection fails the transform: faces left unblurred would be a wrong result.
        guard let faces = try? detector.faces(in: image) else { return nil }
        guard !faces.isEmpty else { return image }
        let sigma = sigma
        return image.transformed(by: PixelTransform { pixels, scale throws(VipsError) in
            var result = pixels
            for face in faces {
                let (left, top) = (max(0, face.x), max(0, face.y))
                let (width, height) = (min(face.x + face.width, pixels.width) - left, min(face.y + face.height, pixels.height) - top)
                guard width > 0, height > 0 else { continue }
                let area = try pixels.extractingArea(x: left, y: top, width: width, height: height)
                let blurred = pixels.hasAlpha
                    ? try area.premultipliedEightBit().gaussianBlur(sigma: sigma * scale).unpremultipliedEightBit()
                    : try area.gaussianBlur(sigma: sigma * scale)
                result = try result.inserting(blurred, x: left, y: top)
            }
            return result
        })
    }
}
