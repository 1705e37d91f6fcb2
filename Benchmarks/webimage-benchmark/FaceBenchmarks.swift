import Foundation
import ImageEngine
import WebImage

/// `webimage-benchmark faces [IMAGE...]` (rocket.jpg, astronaut.png and the 18 MP
/// TestImageLarge.jpg by default): what face detection adds to a 300x300 thumbnail, issue 43's
/// target being at most 1x the CPU of the same thumbnail without it. The thumbnail is
/// `webimage convert --thumbnail 300x300 --gravity G`'s work: the image decoded shrunk on load
/// until it covers 300x300, cut to it by the gravity, encoded as JPEG q80. Rows: the thumbnail cut
/// by attention (`g:sm`, the baseline) and at the centre, cut around the faces, the detection
/// alone on the decoded thumbnail, and where the detection's time goes (each cascade pass on the
/// thumbnail's pixels, and /info's path, which decodes its own copy at most 640 pixels long),
/// beside the cheaper cascades and copies it could use instead. Interleaved rounds
/// (`FloorBenchmarks.Rounds`), medians of the process's CPU time, each row also as a ratio to
/// the `g:sm` thumbnail's.
enum FaceBenchmarks {
    static let defaultPaths = ["photos/rocket.jpg", "photos/astronaut.png", "sdwebimage/TestImageLarge.jpg"]
    static let side = 300

    static func run(paths: [String]) throws {
        try FloorBenchmarks.eachImage(
            titled: "Face detection against a \(side)x\(side) thumbnail (JPEG q\(CoderBenchmarks.quality)) without it", paths: paths, compare(path:data:)
        )
    }

    /// Decode options shrinking `data`'s image on load until it covers the thumbnail's box
    /// (each side rounded up, never enlarged), as `webimage convert --gravity` decodes.
    static func coveringOptions(_ data: Data, box: Int, lazy: Bool) throws -> ImageCoderOptions {
        let header = try ImageHeader(probing: data)
        let (width, height) = (Double(header.pixelWidth), Double(header.pixelHeight))
        let factor = min(1, max(Double(box) / width, Double(box) / height))
        var options = ImageCoderOptions()
        options.decodeUseLazyDecoding = lazy
        if factor < 1 { options.decodeThumbnailPixelSize = CGSize(width: (width * factor).rounded(.up), height: (height * factor).rounded(.up)) }
        return options
    }

    /// The image's pixels (RGBA8), as the detector hands them to OpenCV.
    static func pixels(of image: WebImage.Image) throws -> PixelBuffer {
        try image.withUnsafeRGBA8Bytes { PixelBuffer(copying: $0, width: image.pixelWidth, height: image.pixelHeight, bands: 4) }
    }

    static func compare(path: String, data: Data) throws {
        let manager = ImageCodersManager.shared
        let encoding = CoderBenchmarks.encodeOptions
        let box = CGSize(width: Double(side), height: Double(side))
        let lazy = try coveringOptions(data, box: side, lazy: true)
        let thumbnail = try manager.decode(data, options: coveringOptions(data, box: side, lazy: false))
        let pixels = try Self.pixels(of: thumbnail)
        // The copy at half the thumbnail's sides: a face needs 2 x minFaceSide thumbnail pixels.
        var halfOptions = ImageCoderOptions()
        halfOptions.decodeThumbnailPixelSize = CGSize(width: Double(thumbnail.pixelWidth / 2), height: Double(thumbnail.pixelHeight / 2))
        let halfPixels = try Self.pixels(of: manager.decode(data, options: halfOptions))
        // /info's copy (`OpenCVFaceDetector.faces(in: Data)`): at most 640 pixels long, first frame.
        var infoCopyOptions = ImageCoderOptions()
        infoCopyOptions.decodeThumbnailPixelSize = CGSize(width: Double(OpenCVFaceDetector.maxPixelSide), height: Double(OpenCVFaceDetector.maxPixelSide))
        infoCopyOptions.decodeFirstFrameOnly = true

        let detector = OpenCVFaceDetector.shared
        let haar = OpenCVFaceDetector.haarCascades
        let haarFrontal = haar.frontalCascadePath
        let haarProfile = haar.profileCascadePath ?? ""
        let lbpFrontal = detector.frontalCascadePath
        let lbpProfile = OpenCVFaceDetector.lbpCascadeDirectory + "/lbpcascade_profileface.xml"
        func parameters(mirroredToo: Bool) -> FaceCascade.Parameters {
            FaceCascade.Parameters(
                scaleFactor: detector.scaleFactor, minNeighbours: detector.minNeighbours, minSize: detector.minFaceSide,
                equalizesHistogram: true, mirroredToo: mirroredToo
            )
        }
        func pass(_ cascade: String, _ on: PixelBuffer, mirroredToo: Bool = false) throws -> Int {
            try FaceCascade.detections(cascadePath: cascade, in: on, parameters: parameters(mirroredToo: mirroredToo)).count
        }
        func thumbnailJob(_ gravity: ImageGravity) throws {
            let image = try manager.decode(data, options: lazy)
            guard let cut = GravityCroppingTransformer(size: box, gravity: gravity).transformedImage(with: image, forKey: "") else {
                throw CoderBenchmarks.Failure(description: "\(path): the \(gravity) cut failed")
            }
            _ = try manager.encode(cut, format: .jpeg, options: encoding)
        }

        let steps: [FloorBenchmarks.Step] = [
            .init(label: "thumbnail g:sm (attention, no detection): the baseline") { try thumbnailJob(.smart) },
            .init(label: "thumbnail centre (no detection)") { try thumbnailJob(.center) },
            .init(label: "thumbnail g:obj:face (the default: LBP frontal)") { try thumbnailJob(.faces) },
            .init(label: "detection alone on the decoded thumbnail (default)") { _ = try detector.faces(in: thumbnail) },
            .init(label: "/info's detection: its own <=640 px decode + detection") { _ = try detector.faces(in: data) },
            .init(label: "  its <=640 px decode alone") { _ = try manager.decode(data, options: infoCopyOptions) },
            .init(label: "haarCascades (before): thumbnail g:obj:face") {
                let image = try manager.decode(data, options: lazy)
                guard let cut = FaceCroppingTransformer(size: box, detector: haar).transformedImage(with: image, forKey: "") else {
                    throw CoderBenchmarks.Failure(description: "\(path): the Haar face cut failed")
                }
                _ = try manager.encode(cut, format: .jpeg, options: encoding)
            },
            .init(label: "haarCascades (before): detection alone") { _ = try haar.faces(in: thumbnail) },
            .init(label: "  Haar frontal pass (haarcascade_frontalface_alt)") { _ = try pass(haarFrontal, pixels) },
            .init(label: "  Haar profile pass") { _ = try pass(haarProfile, pixels) },
            .init(label: "  Haar profile pass and mirrored profile pass") { _ = try pass(haarProfile, pixels, mirroredToo: true) },
            .init(label: "LBP frontal pass (the default's)") { _ = try pass(lbpFrontal, pixels) },
            .init(label: "alt: LBP profile pass and mirrored") { _ = try pass(lbpProfile, pixels, mirroredToo: true) },
            .init(label: "alt: Haar frontal pass on the half-size copy") { _ = try pass(haarFrontal, halfPixels) },
            .init(label: "alt: LBP frontal pass on the half-size copy") { _ = try pass(lbpFrontal, halfPixels) },
        ]
        let header = try ImageHeader(probing: data)
        let faces = try detector.faces(in: thumbnail).count
        let haarFaces = try haar.faces(in: thumbnail).count
        print("\n-- \(path): \(header.pixelWidth)x\(header.pixelHeight), thumbnail decoded at \(thumbnail.pixelWidth)x\(thumbnail.pixelHeight)"
              + " (half copy \(halfPixels.width)x\(halfPixels.height)); faces found: \(faces) (haarCascades: \(haarFaces)) --")
        let rounds = try FloorBenchmarks.Rounds(steps, rounds: 15, ours: 2, floor: 0)
        let baseline = rounds.cpu[0]
        for (index, step) in steps.enumerated() {
            print("  \(step.label.padding(toLength: 60, withPad: " ", startingAt: 0)) CPU \(Comparison.format(rounds.cpu[index]))"
                  + String(format: "  %.2fx the g:sm thumbnail", rounds.cpu[index] / baseline))
        }
        let ratio = JobBenchmarks.Quartiles(rounds.cpuRatios)
        print(String(format: "  g:obj:face over g:sm, round by round: %.2fx the CPU (quartiles %.2f – %.2f): detection adds %.2fx",
                     ratio.median, ratio.lower, ratio.upper, ratio.median - 1))
        print("  the mirrored Haar profile pass alone (the two rows' difference): \(Comparison.format(max(0, rounds.cpu[10] - rounds.cpu[9])))")
    }
}
