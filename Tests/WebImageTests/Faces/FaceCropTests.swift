import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// Crops around faces (`ImageGravity.faces`, `FaceCroppingTransformer`) on the repository's
/// photos: the faces whole in the crop when they fit, attention's crop when there is none.
@Suite("Faces: crops", .offThePool) struct FaceCropTests {
    static let side = 300.0

    /// Where `crop` lies in `source` (both decoded, the crop's pixels moved, not resampled):
    /// the top-left corner at which every row of the crop is the source's.
    static func origin(of crop: WebImage.Image, in source: WebImage.Image) throws -> (x: Int, y: Int)? {
        let (width, height) = (crop.pixelWidth, crop.pixelHeight)
        return try source.withUnsafeRGBA8Bytes { whole in
            try crop.withUnsafeRGBA8Bytes { part in
                let row = width * 4
                func matches(_ x: Int, _ y: Int, rows: Range<Int>) -> Bool {
                    rows.allSatisfy { line in
                        memcmp(whole.baseAddress! + ((y + line) * source.pixelWidth + x) * 4, part.baseAddress! + line * row, row) == 0
                    }
                }
                for y in 0...(source.pixelHeight - height) {
                    for x in 0...(source.pixelWidth - width) where matches(x, y, rows: 0..<1) && matches(x, y, rows: 0..<height) {
                        return (x, y)
                    }
                }
                return nil
            }
        }
    }

    /// The faces a crop of `side` pixels keeps whole, as the crop is described: every face
    /// when they fit in it together; else the largest, then each other face, the larger first,
    /// that fits in the crop along with those already kept.
    static func keptFaces(_ faces: [DetectedFace], side: Int) -> [DetectedFace] {
        var kept: [DetectedFace] = []
        for face in faces.sorted(by: { $0.width * $0.height > $1.width * $1.height }) {
            let group = kept + [face]
            let width = group.map { $0.x + $0.width }.max()! - group.map(\.x).min()!
            let height = group.map { $0.y + $0.height }.max()! - group.map(\.y).min()!
            if kept.isEmpty || (width <= side && height <= side) { kept.append(face) }
        }
        return kept
    }

    /// A 300x300 face crop of each photo holds every face box the detector finds whole when
    /// they fit in it (the portraits' one face, the astronaut's, the two children `haarCascades`
    /// finds in the classroom), the largest face and those that fit beside it when they do not,
    /// and lies inside a face larger than itself; with no face found (the classroom, for the
    /// default detector) it is `g:sm`'s crop. The default detector's is `g:obj:face`'s
    /// (`ImageGravity.faces`).
    @Test(arguments: [OpenCVFaceDetector.shared, .haarCascades], FaceDetectionTests.frontalFiles)
    func theCropHoldsEveryFaceWhole(detector: OpenCVFaceDetector, file: String) throws {
        let image = try TestImages.decoded(TestImages.data(file))
        let faces = try detector.faces(in: image)
        let size = CGSize(width: Self.side, height: Self.side)
        let transformer: any ImageTransformer = detector == .shared
            ? GravityCroppingTransformer(size: size, gravity: .faces) : FaceCroppingTransformer(size: size, detector: detector)
        let crop = try #require(transformer.transformedImage(with: image, forKey: ""))
        guard !faces.isEmpty else {
            #expect(detector == .shared && FaceDetectionTests.noFaceForTheDefaultDetector.contains(file), "\(file): no face")
            let smart = try #require(GravityCroppingTransformer(size: size, gravity: .smart).transformedImage(with: image, forKey: ""))
            #expect(try crop.withUnsafeRGBA8Bytes { Array($0) } == smart.withUnsafeRGBA8Bytes { Array($0) })
            return
        }
        #expect(crop.pixelWidth == Int(Self.side) && crop.pixelHeight == Int(Self.side))
        let origin = try #require(try Self.origin(of: crop, in: image), "\(file): the crop is not a part of the image")
        let kept = Self.keptFaces(faces, side: Int(Self.side))
        for face in kept where face.width <= crop.pixelWidth && face.height <= crop.pixelHeight {
            #expect(
                face.x >= origin.x && face.y >= origin.y && face.x + face.width <= origin.x + crop.pixelWidth
                    && face.y + face.height <= origin.y + crop.pixelHeight,
                "\(file): \(face) is not whole in the crop at \(origin) (faces: \(faces))"
            )
        }
        // A face larger than the crop (astronaut-large-6.jpg's is about 300 pixels, the shrunk
        // portraits' 450 to 650) fills it: the crop lies inside the face's box.
        for face in kept where face.width > crop.pixelWidth && face.height > crop.pixelHeight {
            #expect(
                origin.x >= face.x && origin.y >= face.y && origin.x + crop.pixelWidth <= face.x + face.width
                    && origin.y + crop.pixelHeight <= face.y + face.height,
                "\(file): the crop at \(origin) is not inside \(face)"
            )
        }
    }

    /// A crop smaller than the face (60x60 of astronaut.png's 79-pixel face) lies inside it.
    @Test func aCropSmallerThanTheFaceLiesInsideIt() throws {
        let image = try TestImages.decoded(TestImages.data("photos/astronaut.png"))
        let face = try #require(try OpenCVFaceDetector.shared.faces(in: image).first)
        try #require(face.width > 60 && face.height > 60)
        let crop = try #require(FaceCroppingTransformer(size: CGSize(width: 60, height: 60)).transformedImage(with: image, forKey: ""))
        let origin = try #require(try Self.origin(of: crop, in: image))
        #expect(origin.x >= face.x && origin.y >= face.y && origin.x + 60 <= face.x + face.width && origin.y + 60 <= face.y + face.height, "\(origin) \(face)")
    }

    /// With no face found the crop is libvips' attention crop (`g:sm`'s), pixel for pixel.
    @Test(arguments: ["photos/rocket.jpg", "photos/motorcycle_left.png"])
    func withoutAFaceItIsAttentionsCrop(file: String) throws {
        let image = try TestImages.decoded(TestImages.data(file))
        try #require(try OpenCVFaceDetector.shared.faces(in: image).isEmpty, "\(file) has a face")
        let size = CGSize(width: Self.side, height: Self.side)
        let faces = try #require(GravityCroppingTransformer(size: size, gravity: .faces).transformedImage(with: image, forKey: ""))
        let smart = try #require(GravityCroppingTransformer(size: size, gravity: .smart).transformedImage(with: image, forKey: ""))
        let centre = try #require(GravityCroppingTransformer(size: size, gravity: .center).transformedImage(with: image, forKey: ""))
        let bytes = { (image: WebImage.Image) throws -> [UInt8] in try image.withUnsafeRGBA8Bytes { Array($0) } }
        #expect(try bytes(faces) == bytes(smart))
        // Attention's crop is not the centre's on these photos: the comparison tells them apart.
        #expect(try bytes(smart) != bytes(centre))
    }

    /// Faces found by any `FaceDetecting` place the crop: two faces too far apart for the area
    /// leave the larger whole, and two that fit are both kept.
    @Test func aCustomDetectorPlacesTheCrop() throws {
        struct FixedFaces: FaceDetecting {
            let faces: [DetectedFace]
            var detectorKey: String { "fixed" }
            func faces(in image: WebImage.Image) throws(FaceDetectionError) -> [DetectedFace] { faces }
        }
        let image = try TestImages.decoded(TestImages.data("photos/motorcycle_left.png"))
        let small = DetectedFace(x: 20, y: 30, width: 60, height: 60, confidence: 0.9, pose: .frontal)
        let large = DetectedFace(x: 600, y: 350, width: 120, height: 120, confidence: 0.6, pose: .profile)
        let near = DetectedFace(x: 540, y: 320, width: 50, height: 50, confidence: 0.7, pose: .frontal)
        let size = CGSize(width: 200, height: 200)
        for (faces, kept) in [([small, large], [large]), ([near, large, small], [near, large])] {
            let transformer = FaceCroppingTransformer(size: size, detector: FixedFaces(faces: faces))
            let crop = try #require(transformer.transformedImage(with: image, forKey: ""))
            let origin = try #require(try Self.origin(of: crop, in: image))
            for face in faces {
                let whole = face.x >= origin.x && face.y >= origin.y && face.x + face.width <= origin.x + 200 && face.y + face.height <= origin.y + 200
                #expect(whole == kept.contains(face), "\(face) in the crop at \(origin): \(whole)")
            }
        }
        #expect(FaceCroppingTransformer(size: size, detector: FixedFaces(faces: [])).transformerKey != FaceCroppingTransformer(size: size).transformerKey)
    }
}
