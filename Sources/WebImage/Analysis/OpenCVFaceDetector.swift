import Foundation
internal import ImageEngine

/// The default `FaceDetecting`: OpenCV's cascade classifiers on a copy of the image at most
/// `maxPixelSide` pixels on its long side, as thumbor detects. By default OpenCV's LBP frontal
/// face cascade alone, a fraction of the CPU of the Haar cascades thumbor uses (issue 43's
/// target: detection costs at most the thumbnail it crops); `haarCascades` is thumbor's frontal
/// cascade with the profile one, run on the image and on its mirror image, which also finds
/// faces turned sideways (docs/faces.md has the figures).
///
/// Thread-safe: each thread loads its own classifiers at its first detection (OpenCV's are not
/// shareable) and keeps them. The input is an image decoded under the decode limits already
/// (or, from data, `faces(in:coder:options:)` decodes it under them), and the work is bounded
/// by the copy's size, whatever the source's. Equal detectors (the same files and parameters)
/// find the same faces.
public struct OpenCVFaceDetector: FaceDetecting, Hashable {
    /// The long side of the copy faces are looked for in, in pixels (thumbor's 640).
    public static let maxPixelSide = 640
    /// Where Debian's `opencv-data` puts OpenCV's Haar cascades.
    public static let cascadeDirectory = "/usr/share/opencv4/haarcascades"
    /// Where Debian's `opencv-data` puts OpenCV's LBP cascades.
    public static let lbpCascadeDirectory = "/usr/share/opencv4/lbpcascades"
    /// A detector with the default cascade and parameters.
    public static let shared = OpenCVFaceDetector()
    /// thumbor's frontal Haar cascade (`haarcascade_frontalface_alt.xml`) and the Haar profile
    /// cascade (`haarcascade_profileface.xml`, on the copy and its mirror image), the default
    /// parameters: faces turned sideways too, for about twenty times the default's CPU (docs/faces.md).
    public static let haarCascades = OpenCVFaceDetector(
        frontalCascadePath: cascadeDirectory + "/haarcascade_frontalface_alt.xml",
        profileCascadePath: cascadeDirectory + "/haarcascade_profileface.xml"
    )

    /// The frontal face cascade (default: OpenCV's `lbpcascade_frontalface_improved.xml`).
    public var frontalCascadePath: String
    /// The profile cascade, run on the copy and on its mirror image (it finds faces turned one
    /// way only); nil (the default) to look for frontal faces only.
    public var profileCascadePath: String?
    /// How much larger each scale the cascades look at is than the one before (OpenCV's
    /// `scaleFactor`; 1.2: on the repository's photos it finds the faces 1.1 finds, in about half
    /// the scales, without 1.1's profile detection in sdwebimage/MonochromeTestImage.jpg).
    public var scaleFactor: Double
    /// How many more than this many overlapping detection windows a face needs (OpenCV's
    /// `minNeighbors`; 5: at 3, OpenCV's default, the frontal cascade sees a face in
    /// rocket.jpg and the profile one in motorcycle_left.png).
    public var minNeighbours: Int
    /// The smallest face looked for, in the copy's pixels (a side).
    public var minFaceSide: Int

    /// A detector with the cascades at these paths and OpenCV's `detectMultiScale` parameters.
    public init(
        frontalCascadePath: String = Self.lbpCascadeDirectory + "/lbpcascade_frontalface_improved.xml",
        profileCascadePath: String? = nil,
        scaleFactor: Double = 1.2, minNeighbours: Int = 5, minFaceSide: Int = 20
    ) {
        self.frontalCascadePath = frontalCascadePath
        self.profileCascadePath = profileCascadePath
        self.scaleFactor = scaleFactor
        self.minNeighbours = minNeighbours
        self.minFaceSide = minFaceSide
    }

    public var detectorKey: String {
        let profile = profileCascadePath ?? "none"
        return "OpenCVFaceDetector(\(frontalCascadePath),\(profile),\(TransformerKey.number(scaleFactor)),\(minNeighbours),\(minFaceSide))"
    }

    public func faces(in image: Image) throws(FaceDetectionError) -> [DetectedFace] {
        let detections = try poseDetections(in: image)
        return Self.merged(frontal: detections.frontal, profile: detections.profile)
    }

    /// The faces in encoded `data`, boxes in its upright pixels at full size: decoded by `coder`
    /// under `options`' limits, straight at the detection copy's size (shrink-on-load: JPEG's DCT
    /// scaling, libvips' thumbnail), first frame only.
    public func faces(
        in data: Data, coder: any ImageCoder = ImageCodersManager.shared, options: ImageCoderOptions = ImageCoderOptions()
    ) throws(FaceDetectionError) -> [DetectedFace] {
        let header: ImageHeader
        do {
            header = try ImageHeader(probing: data)
        } catch {
            throw .decoding(error)
        }
        let copy: Image
        do {
            copy = try coder.decode(data, options: AnalysisCopy.decodeOptions(options, fitting: Self.maxPixelSide))
        } catch {
            throw .decoding(error)
        }
        let faces = try faces(in: copy)
        let (scaleX, scaleY) = (Double(header.pixelWidth) / Double(copy.pixelWidth), Double(header.pixelHeight) / Double(copy.pixelHeight))
        return faces.map { Self.scaled($0, x: scaleX, y: scaleY, bounds: (header.pixelWidth, header.pixelHeight)) }
    }

    /// Each cascade's faces in `image`'s first frame, boxes in its upright pixels: what
    /// `faces(in:)` merges (the tests compare them with OpenCV's own, cascade by cascade).
    func poseDetections(in image: Image) throws(FaceDetectionError) -> (frontal: [DetectedFace], profile: [DetectedFace]) {
        guard let first = image.frame(at: 0) else { throw .decoding(.corruptData(format: image.format, reason: "the first frame cannot be decoded")) }
        return try poseDetections(in: Self.detectionCopy(of: first), upright: (first.pixelWidth, first.pixelHeight))
    }

    /// The faces in page `page` of a file (`/info`'s `page`: a TIFF's or PDF's page, an
    /// animation's frame; lazy, its pixel count checked against the decode limits by the caller),
    /// boxes in its upright pixels: detected on libvips' thumbnail of it at most `maxPixelSide`
    /// long, in sRGB.
    func faces(inPage page: VipsImageRef, format: ImageFormat) throws(FaceDetectionError) -> [DetectedFace] {
        let pixels: PixelBuffer
        let upright: VipsImageRef
        do {
            upright = page.orientation > 1 ? try page.autorotated() : page
            pixels = try upright.thumbnail(width: Self.maxPixelSide, height: Self.maxPixelSide, sizing: .down).normalizedToSRGB().renderRGBA()
        } catch {
            throw .decoding(.corruptData(format: format, reason: error.message))
        }
        let detections = try poseDetections(in: pixels, upright: (upright.width, upright.height))
        return Self.merged(frontal: detections.frontal, profile: detections.profile)
    }

    /// Each cascade's faces in `pixels`, a copy of an upright image of `upright`'s size, boxes
    /// multiplied out to that size.
    private func poseDetections(
        in pixels: PixelBuffer, upright: (width: Int, height: Int)
    ) throws(FaceDetectionError) -> (frontal: [DetectedFace], profile: [DetectedFace]) {
        let (scaleX, scaleY) = (Double(upright.width) / Double(pixels.width), Double(upright.height) / Double(pixels.height))
        let bounds = upright
        func detect(_ path: String, mirroredToo: Bool, pose: DetectedFace.Pose) throws(FaceDetectionError) -> [DetectedFace] {
            let parameters = FaceCascade.Parameters(
                scaleFactor: scaleFactor, minNeighbours: minNeighbours, minSize: minFaceSide, equalizesHistogram: true, mirroredToo: mirroredToo
            )
            let found: [FaceCascade.Detection]
            do {
                found = try FaceCascade.detections(cascadePath: path, in: pixels, parameters: parameters)
            } catch {
                throw .detector(error.message)
            }
            return found.map { detection in
                let confidence = Double(detection.neighbours) / Double(detection.neighbours + max(1, minNeighbours))
                let face = DetectedFace(
                    x: detection.x, y: detection.y, width: detection.width, height: detection.height, confidence: confidence, pose: pose
                )
                return Self.scaled(face, x: scaleX, y: scaleY, bounds: bounds)
            }
        }
        let frontal = try detect(frontalCascadePath, mirroredToo: false, pose: .frontal)
        let profile = try profileCascadePath.map { path throws(FaceDetectionError) in try detect(path, mirroredToo: true, pose: .profile) } ?? []
        return (frontal, profile)
    }

    /// `image`'s pixels fitted in `maxPixelSide` (resized with the library's Lanczos-3, as any
    /// downscale), never enlarged.
    static func detectionCopy(of image: Image) throws(FaceDetectionError) -> PixelBuffer {
        guard let source = AnalysisCopy.fitted(image, side: maxPixelSide) else {
            throw .decoding(.corruptData(format: image.format, reason: "cannot resize it to look for faces"))
        }
        do {
            return try source.renderedPixels()
        } catch {
            throw .decoding(error)
        }
    }

    /// `face` with its box multiplied by `x` and `y` (rounded outwards), kept inside `bounds`.
    static func scaled(_ face: DetectedFace, x: Double, y: Double, bounds: (width: Int, height: Int)) -> DetectedFace {
        guard x != 1 || y != 1 else { return face }
        let left = max(0, Int((Double(face.x) * x).rounded(.down)))
        let top = max(0, Int((Double(face.y) * y).rounded(.down)))
        let right = min(bounds.width, Int((Double(face.x + face.width) * x).rounded(.up)))
        let bottom = min(bounds.height, Int((Double(face.y + face.height) * y).rounded(.up)))
        var scaled = face
        (scaled.x, scaled.y, scaled.width, scaled.height) = (left, top, max(0, right - left), max(0, bottom - top))
        return scaled
    }

    /// The frontal faces, and the profile ones that are not a face found already (the profile
    /// cascade often finds a frontal face too, and a face turned halfway both in the image and
    /// in its mirror): a box mostly inside one kept already (over half of the smaller box) goes,
    /// the more confident profile boxes kept first.
    static func merged(frontal: [DetectedFace], profile: [DetectedFace]) -> [DetectedFace] {
        var kept = frontal
        for face in profile.sorted(by: { $0.confidence > $1.confidence }) {
            let overlapping = kept.contains { other in
                let smaller = Double(min(face.width * face.height, other.width * other.height))
                let width = max(0, min(face.x + face.width, other.x + other.width) - max(face.x, other.x))
                let height = max(0, min(face.y + face.height, other.y + other.height) - max(face.y, other.y))
                return smaller > 0 && Double(width * height) > smaller / 2
            }
            if !overlapping { kept.append(face) }
        }
        return kept
    }
}
