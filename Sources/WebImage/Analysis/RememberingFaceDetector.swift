import Foundation
internal import ImageEngine

/// A detector that asks another once, for the first image it is given, and answers every later
/// call with those faces: the steps of one image's pipeline that change its pixels one after the
/// other (the server's `blur_detections`, then `draw_detections`) go by one detection of the
/// image as it was before them, made once. One for each image.
public final class RememberingFaceDetector: FaceDetecting {
    /// The detector asked.
    public let detector: any FaceDetecting
    /// The first call's answer, faces or failure.
    private let answer = Locked<Result<[DetectedFace], FaceDetectionError>?>(nil)

    /// A detector asking `detector` once.
    public init(_ detector: any FaceDetecting) {
        self.detector = detector
    }

    public var detectorKey: String { detector.detectorKey }

    public func faces(in image: Image) throws(FaceDetectionError) -> [DetectedFace] {
        let result = answer.withLock { answer in
            if let answer { return answer }
            let found = Result { () throws(FaceDetectionError) in try detector.faces(in: image) }
            answer = found
            return found
        }
        return try result.get()
    }
}
