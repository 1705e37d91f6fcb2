import Foundation
import Testing
@testable import WebImage

/// The reference the face detections are checked against: Tests/Faces/face_reference.py,
/// OpenCV's own `CascadeClassifier` from PyPI (`opencv-python-headless` < 5) in the virtual
/// environment scripts/faces-venv.sh makes (/opt/faces-venv or $WEBIMAGE_TEST_FACES_VENV), with
/// the detector's cascade files and parameters, run once per test as a child process.
enum FaceReference {
    static let venv = URL(fileURLWithPath: ProcessInfo.processInfo.environment["WEBIMAGE_TEST_FACES_VENV"] ?? "/opt/faces-venv")
    /// Tests/Faces/face_reference.py (this file is Tests/WebImageTests/Faces/FaceReference.swift).
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Faces/face_reference.py")

    /// One image to look for faces in, with the detector's settings.
    struct Task: Encodable {
        var path: String
        var maxSide: Int
        var frontal: String
        var profile: String
        var scaleFactor: Double
        var minNeighbours: Int
        var minSize: Int

        init(_ file: String, detector: OpenCVFaceDetector) {
            path = TestImages.url(file).path
            maxSide = OpenCVFaceDetector.maxPixelSide
            frontal = detector.frontalCascadePath
            profile = detector.profileCascadePath ?? ""
            scaleFactor = detector.scaleFactor
            minNeighbours = detector.minNeighbours
            minSize = detector.minFaceSide
        }
    }

    /// OpenCV's boxes for one image, in its upright pixels: [x, y, width, height, neighbours].
    struct Answer: Decodable {
        var width: Int
        var height: Int
        var frontal: [[Int]]
        var profile: [[Int]]
    }

    /// The script's answers to `tasks`, in order.
    static func answers(_ tasks: [Task]) async throws -> [Answer] {
        let python = venv.appendingPathComponent("bin/python")
        try #require(FileManager.default.isExecutableFile(atPath: python.path), "OpenCV's Python reference: bash scripts/setup.sh installs it (scripts/faces-venv.sh)")
        let result = try await ChildProcess.run(executable: python, [script.path], input: try JSONEncoder().encode(tasks))
        try #require(result.status == 0, "face_reference.py: \(result.standardError)")
        let answers = try JSONDecoder().decode([Answer].self, from: Data(result.standardOutput.utf8))
        try #require(answers.count == tasks.count)
        return answers
    }

    /// A reference box as a face (its confidence is not compared).
    static func face(_ box: [Int], pose: DetectedFace.Pose) -> DetectedFace {
        DetectedFace(x: box[0], y: box[1], width: box[2], height: box[3], confidence: 0, pose: pose)
    }
}
