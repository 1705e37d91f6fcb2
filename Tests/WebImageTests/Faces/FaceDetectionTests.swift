import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// The OpenCV face detector against OpenCV's own run from Python (same cascade files, same
/// parameters), on the repository's photos with faces: astronaut.png, its copies stored under
/// each EXIF orientation and a large one detected on a shrunk copy, camera.png (a profile,
/// which only `haarCascades`' profile cascade finds), and the photographs of people added from
/// elsewhere (Tests/Images/README.md): three portraits and a classroom of children.
@Suite("Faces: detection", .offThePool) struct FaceDetectionTests {
    static let frontalFiles = ["photos/astronaut.png", "faces/astronaut-large-6.jpg"] + (1...8).map { "faces/astronaut-\($0).jpg" } + photoFiles
    /// Photographs of people: portraits (grace-hopper.jpg 512x600, detected at full size;
    /// city-portrait.jpg 1200x794 and woman-portrait.jpg 800x1200, on a shrunk copy) and a group
    /// (classroom-tanzania.jpg, 725x544: about twenty children, two of whom the cascades find).
    static let photoFiles = ["faces/grace-hopper.jpg", "faces/city-portrait.jpg", "faces/woman-portrait.jpg", "faces/classroom-tanzania.jpg"]
    /// The photos in which the default detector (LBP) finds no face: in the classroom the two
    /// children it sees come at 5 windows each, one short of its threshold (more than 5), on
    /// the library's Lanczos-3 copy; OpenCV's own run on Pillow's copy (at most 4 levels apart)
    /// counts 6 each, at the edge that `FaceMatching` lets go unpaired.
    static let noFaceForTheDefaultDetector: Set<String> = ["faces/classroom-tanzania.jpg"]

    /// Every face of each cascade pairs with OpenCV's at IoU ≥ 0.5 (in the upright image,
    /// orientation applied first), and each image has at least a face it shows (but the
    /// classroom for the default detector): the default detector (LBP, frontal) and
    /// `haarCascades` (thumbor's, with the profile cascade).
    @Test(arguments: [
        (OpenCVFaceDetector.shared, frontalFiles),
        (OpenCVFaceDetector.haarCascades, frontalFiles + ["photos/camera.png"]),
    ])
    func eachCascadeMatchesOpenCVsOwnRun(detector: OpenCVFaceDetector, files: [String]) async throws {
        let answers = try await FaceReference.answers(files.map { FaceReference.Task($0, detector: detector) })
        for (file, answer) in zip(files, answers) {
            let image = try TestImages.decoded(TestImages.data(file))
            #expect(image.pixelWidth == answer.width && image.pixelHeight == answer.height, "\(file): upright size")
            let ours = try detector.poseDetections(in: image)
            for (pose, found, reference) in [(DetectedFace.Pose.frontal, ours.frontal, answer.frontal), (.profile, ours.profile, answer.profile)] {
                let matching = FaceMatching(ours: found, reference: reference, pose: pose, minNeighbours: detector.minNeighbours)
                #expect(matching.unmatchedOurs.isEmpty, "\(file) \(pose): ours without OpenCV's: \(matching.unmatchedOurs); OpenCV's: \(reference)")
                #expect(matching.unmatchedReference.isEmpty, "\(file) \(pose): OpenCV's without ours: \(matching.unmatchedReference); ours: \(found)")
            }
            let none = detector == .shared && Self.noFaceForTheDefaultDetector.contains(file)
            #expect((ours.frontal + ours.profile).isEmpty == none, "\(file): \(ours)")
        }
    }

    /// Faces from encoded data (decoded straight at the detection copy's size) are the faces
    /// of the decoded image, in the same full-size pixels, and within it.
    @Test func facesFromDataAreTheImagesFaces() throws {
        let files = [("faces/astronaut-large-6.jpg", OpenCVFaceDetector.shared), ("faces/astronaut-6.jpg", .shared), ("photos/camera.png", .haarCascades)]
        for (file, detector) in files {
            let data = try TestImages.data(file)
            let image = try TestImages.decoded(data)
            let fromImage = try detector.faces(in: image)
            let fromData = try detector.faces(in: data)
            try #require(fromImage.count == 1, "\(file): \(fromImage)")
            #expect(fromData.count == fromImage.count, "\(file): \(fromData) against \(fromImage)")
            for face in fromData {
                #expect(fromImage.contains { $0.intersectionOverUnion(with: face) >= 0.5 }, "\(file): \(face) against \(fromImage)")
                #expect(face.x >= 0 && face.y >= 0 && face.x + face.width <= image.pixelWidth && face.y + face.height <= image.pixelHeight)
            }
        }
    }

    /// The profile cascade's sighting of the astronaut's frontal face is merged into it, and
    /// camera.png's profile face is kept: one face each.
    @Test func mergesAProfileSightingOfAFrontalFace() throws {
        // At OpenCV's default of 3 neighbours the profile cascade sees the astronaut's face too.
        var detector = OpenCVFaceDetector.haarCascades
        detector.minNeighbours = 3
        let image = try TestImages.decoded(TestImages.data("photos/astronaut.png"))
        let sightings = try detector.poseDetections(in: image)
        try #require(sightings.frontal.count == 1 && !sightings.profile.isEmpty, "\(sightings)")
        let faces = try detector.faces(in: image)
        #expect(faces.count == 1 && faces.first?.pose == .frontal, "\(faces)")
        let camera = try OpenCVFaceDetector.haarCascades.faces(in: TestImages.decoded(TestImages.data("photos/camera.png")))
        #expect(camera.count == 1 && camera.first?.pose == .profile, "\(camera)")
        #expect(camera.allSatisfy { $0.confidence > 0.5 && $0.confidence < 1 })
    }

    /// Detections on many threads at once (one classifier per thread) are each the same as one alone.
    @Test func detectsOnManyThreadsAtOnce() async throws {
        let image = try TestImages.decoded(TestImages.data("photos/astronaut.png"))
        let alone = try OpenCVFaceDetector.shared.faces(in: image)
        try #require(alone.count == 1)
        let results = try await withThrowingTaskGroup(of: [DetectedFace].self) { group in
            for _ in 0..<8 {
                group.addTask { try await BlockingPool.run { try OpenCVFaceDetector.shared.faces(in: image) } }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 8 && results.allSatisfy { $0 == alone })
    }

    /// A missing cascade file is an error naming it, not a crash or an empty answer.
    @Test func aMissingCascadeFileIsAnError() throws {
        let detector = OpenCVFaceDetector(frontalCascadePath: "/nonexistent/cascade.xml")
        let image = try TestImages.decoded(TestImages.data("photos/astronaut.png"))
        #expect(throws: FaceDetectionError.self) { try detector.faces(in: image) }
        do {
            _ = try detector.faces(in: image)
        } catch {
            #expect(error.description.contains("/nonexistent/cascade.xml"), "\(error)")
        }
    }
}
