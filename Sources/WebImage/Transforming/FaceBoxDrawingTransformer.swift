import Foundation
internal import ImageEngine

/// Draws the box of each face a detector finds, an outline inside the box, and a label with its
/// class and confidence ("face 0.83", dark text on the outline's colour) above the box, or inside
/// its top when there is no room above, and leaves every other pixel as it was (imgproxy Pro's
/// `draw_detections` for faces: for seeing what a crop or a blur will go by). Faces are looked
/// for in the first frame; every frame of an animation gets the same boxes.
public struct FaceBoxDrawingTransformer: ImageTransformer {
    /// The outline's width, in points (pixels times the image's scale), at least a pixel.
    public let lineWidth: Double
    /// The outline's colour, alpha included (an image without alpha takes its red, green and blue).
    public let color: RGBA8
    /// What finds the faces.
    public let detector: any FaceDetecting

    /// A transformer outlining the faces `detector` finds, `lineWidth` points wide in `color`
    /// (green: seen on skin, hair and most backgrounds).
    public init(lineWidth: Double = 2, color: RGBA8 = RGBA8(red: 0, green: 255, blue: 0), detector: any FaceDetecting = OpenCVFaceDetector.shared) {
        self.lineWidth = lineWidth
        self.color = color
        self.detector = detector
    }

    public var transformerKey: String {
        "FaceBoxDrawingTransformer(\(TransformerKey.number(lineWidth)),\(TransformerKey.colour(color)),\(detector.detectorKey))"
    }

    /// The label's text size, in points.
    static let labelPointSize = 12.0

    /// The label of `face`: its class and confidence.
    static func label(of face: DetectedFace) -> String {
        "face " + String(format: "%.2f", face.confidence)
    }

    public func transformedImage(with image: Image, forKey key: String) -> Image? {
        guard lineWidth.isFinite, lineWidth > 0 else { return image }
        // A failed detection fails the transform, as `FaceBlurTransformer`'s does.
        guard let faces = try? detector.faces(in: image) else { return nil }
        guard !faces.isEmpty else { return image }
        let (lineWidth, colour) = (lineWidth, [color.red, color.green, color.blue, color.alpha].map(Double.init))
        return image.transformed(by: PixelTransform { pixels, scale throws(VipsError) in
            let line = max(1, Int((lineWidth * scale).rounded()))
            let bands = pixels.bands
            var result = pixels
            for face in faces {
                let (left, top) = (max(0, face.x), max(0, face.y))
                let (right, bottom) = (min(face.x + face.width, pixels.width), min(face.y + face.height, pixels.height))
                let (width, height) = (right - left, bottom - top)
                guard width > 0, height > 0 else { continue }
                let (across, down) = (min(line, height), min(line, width))
                // Top, bottom, left and right sides, each a strip inside the box painted over.
                let sides = [
                    (left, top, width, across), (left, bottom - across, width, across),
                    (left, top, down, height), (right - down, top, down, height),
                ]
                for (x, y, stripWidth, stripHeight) in sides {
                    let strip = try pixels.extractingArea(x: x, y: y, width: stripWidth, height: stripHeight)
                    let painted = try strip.linear(multipliers: Array(repeating: 0, count: bands), addends: Array(colour.prefix(bands))).cast(to: .uchar)
                    result = try result.inserting(painted, x: x, y: y)
                }
                // The label: the text's coverage with a margin, each colour band darkened where
                // the glyphs cover it (the alpha band stays the outline's), set on the box's
                // top-left corner outside it when it fits above, else inside; cut at the edges.
                let glyphs = try VipsImageRef.text(Self.label(of: face), font: "sans \(max(6, Int((Self.labelPointSize * scale).rounded())))")
                let margin = max(1, line)
                let (labelWidth, labelHeight) = (glyphs.width + 2 * margin, glyphs.height + 2 * margin)
                let coverage = try glyphs.embedded(x: margin, y: margin, width: labelWidth, height: labelHeight, background: [0])
                let darkening = colour.prefix(bands).enumerated().map { band, value in band == 3 || (bands == 2 && band == 1) ? 0 : -value / 255 }
                let label = try coverage.linear(multipliers: darkening, addends: Array(colour.prefix(bands))).cast(to: .uchar)
                result = try result.inserting(label, x: left, y: top >= labelHeight ? top - labelHeight : top)
            }
            return result
        })
    }
}
