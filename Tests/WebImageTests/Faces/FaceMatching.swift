@testable import WebImage

/// Pairs our detections with OpenCV's own, one to one, at an intersection over union of at
/// least 0.5. A detection at the edge of the threshold (at most `marginal` more windows than
/// `minNeighbours` agreed on it) may go unpaired on either side: decoders and resamplers round
/// a level differently (Pillow's against ours), and such a detection appears or not with it.
struct FaceMatching {
    /// Our faces with no reference face at IoU ≥ 0.5 (that are not marginal).
    var unmatchedOurs: [DetectedFace] = []
    /// Reference faces with none of ours at IoU ≥ 0.5 (that are not marginal).
    var unmatchedReference: [DetectedFace] = []
    /// Pairs made.
    var pairs = 0

    static let marginal = 2

    init(ours: [DetectedFace], reference: [[Int]], pose: DetectedFace.Pose, minNeighbours: Int) {
        var free = Array(reference.indices)
        for face in ours {
            let best = free.max {
                face.intersectionOverUnion(with: FaceReference.face(reference[$0], pose: pose))
                    < face.intersectionOverUnion(with: FaceReference.face(reference[$1], pose: pose))
            }
            if let best, face.intersectionOverUnion(with: FaceReference.face(reference[best], pose: pose)) >= 0.5 {
                free.removeAll { $0 == best }
                pairs += 1
            } else if Self.neighbours(face, minNeighbours: minNeighbours) > minNeighbours + Self.marginal {
                unmatchedOurs.append(face)
            }
        }
        unmatchedReference = free.filter { reference[$0][4] > minNeighbours + Self.marginal }.map { FaceReference.face(reference[$0], pose: pose) }
    }

    /// The windows grouped into `face`, from its confidence `n / (n + minNeighbours)`.
    static func neighbours(_ face: DetectedFace, minNeighbours: Int) -> Int {
        guard face.confidence < 1 else { return .max }
        return Int((face.confidence * Double(minNeighbours) / (1 - face.confidence)).rounded())
    }
}
