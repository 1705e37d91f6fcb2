import CFaceDetection

/// OpenCV's Haar cascade detector (`CFaceDetection`), run on a bitmap: the raw detections of one
/// cascade file, in the bitmap's pixels. Each thread loads its own classifier per file at its
/// first call (OpenCV's classifier keeps scratch state while it detects), so calls from several
/// threads at once are safe. It blocks for the detection: call it off the cooperative pool.
public enum FaceCascade {
    /// One detection: a box in the bitmap's pixels and how many detection windows were grouped
    /// into it (OpenCV's `numDetections`).
    public struct Detection: Sendable, Hashable {
        public let x: Int
        public let y: Int
        public let width: Int
        public let height: Int
        public let neighbours: Int
    }

    /// `CascadeClassifier::detectMultiScale`'s parameters.
    public struct Parameters: Sendable, Hashable {
        public var scaleFactor: Double
        public var minNeighbours: Int
        /// The smallest face side looked for, in the bitmap's pixels.
        public var minSize: Int
        /// Equalize the grey image's histogram first.
        public var equalizesHistogram: Bool
        /// Also detect on the bitmap mirrored left to right (the profile cascade sees faces
        /// turned one way only); those detections are mapped back and come after the others.
        public var mirroredToo: Bool

        public init(scaleFactor: Double, minNeighbours: Int, minSize: Int, equalizesHistogram: Bool, mirroredToo: Bool) {
            self.scaleFactor = scaleFactor
            self.minNeighbours = minNeighbours
            self.minSize = minSize
            self.equalizesHistogram = equalizesHistogram
            self.mirroredToo = mirroredToo
        }
    }

    /// The detections of the cascade in the file at `cascadePath` on `pixels` (grey, RGB or
    /// RGBA; turned grey as OpenCV's `cvtColor` does). Throws when the file cannot be loaded
    /// or OpenCV fails.
    public static func detections(cascadePath: String, in pixels: PixelBuffer, parameters: Parameters) throws(VipsError) -> [Detection] {
        guard [1, 3, 4].contains(pixels.bands) else { throw VipsError("face detection: \(pixels.bands) bands, grey, RGB or RGBA expected") }
        guard pixels.width <= Int(Int32.max), pixels.height <= Int(Int32.max), parameters.minNeighbours >= 0,
              parameters.minSize >= 0, parameters.minSize <= Int(Int32.max), parameters.scaleFactor > 1
        else { throw VipsError("face detection: invalid parameters") }
        var options = fd_parameters(
            scale_factor: parameters.scaleFactor, min_neighbours: Int32(clamping: parameters.minNeighbours),
            min_size: Int32(parameters.minSize), equalize_histogram: parameters.equalizesHistogram ? 1 : 0,
            mirrored_too: parameters.mirroredToo ? 1 : 0
        )
        var capacity = 64
        while true {
            var found = [fd_detection](repeating: fd_detection(), count: capacity)
            var message = [CChar](repeating: 0, count: 512)
            let count = pixels.withUnsafeBytes { bytes in
                found.withUnsafeMutableBufferPointer { out in
                    fd_detect(
                        cascadePath, bytes.bindMemory(to: UInt8.self).baseAddress, Int32(pixels.width), Int32(pixels.height),
                        Int32(pixels.bands), pixels.rowBytes, &options, out.baseAddress, Int32(capacity), &message, message.count
                    )
                }
            }
            guard count >= 0 else {
                throw VipsError("face detection: " + String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            // More than there was room for (hardly ever): detect again with room for all.
            guard Int(count) <= capacity else {
                capacity = Int(count)
                continue
            }
            return found.prefix(Int(count)).map {
                Detection(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height), neighbours: Int($0.neighbours))
            }
        }
    }
}
