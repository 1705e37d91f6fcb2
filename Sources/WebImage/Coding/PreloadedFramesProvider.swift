import Foundation

/// An animation's frames decoded all at once and kept: what `.preloadAllFrames` gives a load
/// (SDWebImage calls `preloadAllFrames` on the decoded image). The data and loop count are
/// the original provider's; a frame that does not decode stays nil, as it would on demand.
struct PreloadedFramesProvider: AnimatedImageProvider {
    private let original: any AnimatedImageProvider
    private let frames: [Image?]

    init(_ original: any AnimatedImageProvider) {
        self.original = original
        frames = (0..<original.animatedImageFrameCount).map { index in
            original.animatedImageFrame(at: index).flatMap { try? $0.decoded() }
        }
    }

    var animatedImageData: Data? { original.animatedImageData }
    var animatedImageFrameCount: Int { frames.count }
    var animatedImageLoopCount: Int { original.animatedImageLoopCount }

    func animatedImageFrame(at index: Int) -> Image? {
        frames.indices.contains(index) ? frames[index] : nil
    }

    var animatedImageMemoryCost: Int {
        frames.reduce(0) { $0 + ($1?.memoryCost ?? 0) }
    }

    func animatedImageDuration(at index: Int) -> TimeInterval {
        original.animatedImageDuration(at: index)
    }
}
