import Foundation
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// imgproxy Pro's `blur_detections`, `draw_detections` and /info's `detect_objects` over loopback
/// HTTP, on the repository's portrait (faces/astronaut-1.jpg: one face, left of the centre), and
/// the setting naming the cascade files.
@Suite(.offThePool) struct FaceDetectionsServingTests {
    static let portrait = "faces/astronaut-1.jpg"

    /// A server reading `local://` sources from the repository's test images.
    static func configuration(_ configure: (inout ImageServerConfiguration) -> Void = { _ in }) -> ImageServerConfiguration {
        .underTest { configuration in
            configuration.localFilesystemRoot = TestServer.imagesFolder.path
            configure(&configuration)
        }
    }

    /// The unsigned PNG path of the portrait with `options`.
    static func path(_ options: String) -> String { "/unsafe/" + options + "/plain/local:///" + portrait + "@png" }

    /// The image of a 200 reply.
    static func image(_ reply: ServerUnderTest.Reply) throws -> WebImage.Image {
        #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        return try ImageCodersManager.shared.decode(reply.body, options: ImageCoderOptions())
    }

    static func changes(from first: WebImage.Image, to second: WebImage.Image, boxes faces: [DetectedFace]) throws -> BoxedChanges {
        try changes(from: first, to: second, within: faces.map { ($0.x, $0.y, $0.width, $0.height) })
    }

    static func changes(from first: WebImage.Image, to second: WebImage.Image, within boxes: [BoxedChanges.Box]) throws -> BoxedChanges {
        try first.withUnsafeRGBA8Bytes { before in
            try second.withUnsafeRGBA8Bytes { after in BoxedChanges(before, after, width: first.pixelWidth, boxes: boxes) }
        }
    }

    /// The band `face`'s label lies in, above its box.
    static func labelBand(above face: DetectedFace) -> BoxedChanges.Box { BoxedChanges.labelBand(aboveBoxAt: face.x, face.y) }

    /// The pixels of `face`'s outline, `line` pixels wide inside its box.
    static func outline(of face: DetectedFace, line: Int = 2) -> [(x: Int, y: Int)] {
        (face.y..<(face.y + face.height)).flatMap { y in
            (face.x..<(face.x + face.width)).compactMap { x in
                let inner = (face.x + line..<face.x + face.width - line).contains(x) && (face.y + line..<face.y + face.height - line).contains(y)
                return inner ? nil : (x, y)
            }
        }
    }

    // MARK: blur_detections and draw_detections

    /// The result's faces blurred, every other pixel as without the option; one result key for
    /// the option's two names.
    @Test func blurDetectionsBlursTheFacesAndNothingElse() async throws {
        try await withRunningServer(Self.configuration()) { server in
            let plain = try Self.image(try await server.get(Self.path("rs:fit:400:400")))
            let blurred = try Self.image(try await server.get(Self.path("rs:fit:400:400/bd:10:face")))
            // Looked for in the resized image, as the server does.
            let faces = try OpenCVFaceDetector.shared.faces(in: plain)
            let face = try #require(faces.first)
            try #require(faces.count == 1)
            let changes = try Self.changes(from: plain, to: blurred, boxes: faces)
            #expect(changes.outside == 0 && changes.inside > face.width * face.height / 2, "\(changes)")
            let named = try await server.get(Self.path("rs:fit:400:400/blur_detections:10:face"))
            #expect(named.header("x-cache") == "memory", "\(named.headers)")
            // Another sigma, another result.
            #expect(try await server.get(Self.path("rs:fit:400:400/bd:4:face")).header("x-cache") == "miss")
        }
    }

    /// A green outline inside each face box and nothing else changed; with the blur too, the
    /// outline is where the blur went (one detection, before the blur).
    @Test func drawDetectionsOutlinesTheFaces() async throws {
        try await withRunningServer(Self.configuration()) { server in
            let plain = try Self.image(try await server.get(Self.path("rs:fit:400:400")))
            let faces = try OpenCVFaceDetector.shared.faces(in: plain)
            let face = try #require(faces.first)
            try #require(faces.count == 1)
            let green = RGBA8(red: 0, green: 255, blue: 0)
            let outline = Self.outline(of: face)
            for options in ["rs:fit:400:400/dd:1:face", "rs:fit:400:400/draw_detections:true:face/bd:10:face"] {
                let drawn = try Self.image(try await server.get(Self.path(options)))
                #expect(outline.allSatisfy { drawn.pixel(x: $0.x, y: $0.y) == green }, "\(options)")
                // The box and its label above it ("face 0.83"), nothing else.
                let changes = try Self.changes(from: plain, to: drawn, within: [(face.x, face.y, face.width, face.height), Self.labelBand(above: face)])
                #expect(changes.outside == 0, "\(options): \(changes)")
                if !options.contains("bd") { #expect(changes.inside > outline.count + 200, "\(changes), \(outline.count) outline pixels") }
            }
            // Off, the image as it is.
            let off = try Self.image(try await server.get(Self.path("rs:fit:400:400/dd:0:face")))
            #expect(try Self.changes(from: plain, to: off, boxes: []).outside == 0)
        }
    }

    /// `face` is the one class: another, none, or face twice is 400 naming the option and the class.
    @Test func otherClassesAreRefusedByName() async throws {
        try await withRunningServer(Self.configuration()) { server in
            for (options, named) in [("bd:10:cat", "cat"), ("dd:1:person", "person"), ("bd:10", "face"), ("dd:1:face:face", "face"), ("bd:x:face", "x")] {
                let reply = try await server.get(Self.path(options))
                let body = String(decoding: reply.body, as: UTF8.self)
                #expect(reply.status == 400 && body.contains(String(options.prefix(2))) && body.contains(named), "\(options): \(reply.status) \(body)")
            }
        }
    }

    // MARK: /info's detect_objects

    /// Pro's `objects`: each face the detector finds in the source, its box relative to the
    /// upright image; an image without faces has none, nor has a page of one (`page:2`).
    @Test func detectObjectsGivesTheDetectorsFacesRelativeToTheImage() async throws {
        try await withRunningServer(Self.configuration()) { server in
            for file in [Self.portrait, "faces/astronaut-6.jpg"] {
                let faces = try OpenCVFaceDetector.shared.faces(in: try SourceImages.data(file))
                try #require(faces.count == 1)
                let info = try InfoServingTests.object(try await server.get(InfoServingTests.path(file, options: "do:1")))
                let objects = try #require(info["objects"] as? [[String: Any]])
                // Relative to the upright image, whatever the orientation stored.
                #expect(info["width"] as? Int == 512 && info["height"] as? Int == 384)
                #expect(objects.count == faces.count)
                for (object, face) in zip(objects, faces) {
                    #expect(object["class_name"] as? String == "face" && object["class_id"] as? Int == 0)
                    // The JSON's shortest decimal of the confidence, read back: within a rounding.
                    #expect(abs((object["confidence"] as? Double ?? -1) - face.confidence) < 1e-9, "\(object) \(face)")
                    #expect(object["left"] as? Double == Double(face.x) / 512 && object["top"] as? Double == Double(face.y) / 384, "\(object) \(face)")
                    #expect(object["width"] as? Double == Double(face.width) / 512 && object["height"] as? Double == Double(face.height) / 384)
                }
            }
            let rocket = try InfoServingTests.object(try await server.get(InfoServingTests.path("photos/rocket.jpg", options: "detect_objects:1")))
            #expect((rocket["objects"] as? [Any])?.isEmpty == true, "\(rocket)")
            #expect(try InfoServingTests.object(try await server.get(InfoServingTests.path("photos/rocket.jpg", options: "do:0")))["objects"] == nil)
            let paged = try InfoServingTests.object(try await server.get(InfoServingTests.path("sdwebimage/TestImageAnimated.webp", options: "do:1/page:2")))
            #expect((paged["objects"] as? [Any])?.isEmpty == true, "\(paged)")
        }
    }

    // MARK: The setting

    /// `FACE_DETECTION_CASCADES` names the files the detector loads: the eye cascade as the
    /// frontal one finds the astronaut's two eyes where the default finds her face; a file that
    /// is not there stops the server at start.
    @Test func theCascadeSettingChoosesTheDetector() async throws {
        let eyes = OpenCVFaceDetector.cascadeDirectory + "/haarcascade_eye.xml"
        let read = try await ImageServerConfiguration.load(arguments: ["webimage"], environment: ["IMGPROXY_FACE_DETECTION_CASCADES": eyes])
        #expect(read.processing.faceDetector == OpenCVFaceDetector(frontalCascadePath: eyes, profileCascadePath: nil))
        #expect(ImageServerConfiguration().processing.faceDetector == OpenCVFaceDetector.shared)
        let data = try SourceImages.data(Self.portrait)
        let expected = try read.processing.faceDetector.faces(in: data)
        let faces = try OpenCVFaceDetector.shared.faces(in: data)
        #expect(expected.count == 2 && faces.count == 1)
        try await withRunningServer(Self.configuration { $0.processing.faceDetector = read.processing.faceDetector }) { server in
            let info = try InfoServingTests.object(try await server.get(InfoServingTests.path(Self.portrait, options: "do:1")))
            #expect((info["objects"] as? [Any])?.count == expected.count)
        }
        for wrong in ["/no/such/cascade.xml", eyes + "," + eyes + "," + eyes] {
            do {
                _ = try await ImageServerConfiguration.load(arguments: ["webimage"], environment: ["WEBIMAGE_FACE_DETECTION_CASCADES": wrong])
                Issue.record("\(wrong) was read")
            } catch {
                #expect("\(error)".contains("WEBIMAGE_FACE_DETECTION_CASCADES"), "\(error)")
            }
        }
    }
}
