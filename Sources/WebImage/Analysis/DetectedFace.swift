import Foundation

/// A face a `FaceDetecting` detector found: a box in the upright image's pixels, how sure the
/// detector is, and whether it was seen from the front or in profile.
public struct DetectedFace: Sendable, Hashable {
    /// Which way the face was turned, as the cascade that found it was trained.
    public enum Pose: String, Sendable, Hashable {
        case frontal, profile
    }

    /// Left edge, in the upright image's pixels.
    public var x: Int
    /// Top edge, in the upright image's pixels.
    public var y: Int
    public var width: Int
    public var height: Int
    /// 0...1, higher when more detection windows agreed on the face. For OpenCV's cascades it
    /// is `n / (n + minNeighbours)` for the `n` windows grouped into the face: above 0.5, since
    /// a face needs more than `minNeighbours` of them. A ranking, not a probability.
    public var confidence: Double
    public var pose: Pose

    public init(x: Int, y: Int, width: Int, height: Int, confidence: Double, pose: Pose) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.confidence = confidence
        self.pose = pose
    }

    /// The box as a rectangle, in pixels.
    public var rect: CGRect { CGRect(x: x, y: y, width: width, height: height) }

    /// The area of the two boxes' intersection over that of their union, 0...1.
    public func intersectionOverUnion(with other: DetectedFace) -> Double {
        let width = max(0, min(x + self.width, other.x + other.width) - max(x, other.x))
        let height = max(0, min(y + self.height, other.y + other.height) - max(y, other.y))
        let intersection = Double(width * height)
        let union = Double(self.width * self.height + other.width * other.height) - intersection
        return union > 0 ? intersection / union : 0
    }
}
