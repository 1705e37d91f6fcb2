import Foundation

/// The chunks of a PNG file that make it an animation (APNG): `acTL`, `fcTL`, `fdAT`.
enum APNGStructure {
    struct AnimationControl: Equatable {
        var frameCount: Int
        var loopCount: Int
    }

    /// The `acTL` chunk, when it comes before the first `IDAT` (else the file is a still PNG).
    static func animationControl(in data: Data) -> AnimationControl? {
        nil
    }
}
