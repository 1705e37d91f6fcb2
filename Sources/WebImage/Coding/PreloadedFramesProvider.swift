import Foundation

/// An animation's frames decoded all at once and kept: what `.preloadAllFrames` gives a load
/// (SDWebImage calls `preloadAllFrames` on the decoded image). The data and loop count are
/// the original provider's; a frame that does not decode keeps its error (a decode limit or the
/// time budget's stop: `overLimit`), as it would on demand.
struct PreloadedFramesProvider: ThrowingAnimatedImageProvider {
    private let original: any AnimatedImageProvider
    private let frames: [Result<Image, ImageCodingError>]

    /// `image`'s frames, decoded now.
    init(_ image: Image, provider: any AnimatedImageProvider) {
        original = provider
        frames = (0..<provider.animatedImageFrameCount).map { index in
            Result { () throws(ImageCodingError) in try image.decodeFrame(at: index).decoded() }
        }
    }

    var animatedImageData: Data? { original.animatedImageData }
    var animatedImageFrameCount: Int { frames.count }
    var animatedImageLoopCount: Int { original.animatedImageLoopCount }

    func decodeFrame(at index: Int) throws(ImageCodingError) -> Image {
        guard frames.indices.contains(index) else { throw .noFrame(index, of: frames.count, format: .undefined) }
        return try frames[index].get()
    }

    var animatedImageMemoryCost: Int {
        frames.reduce(0) { $0 + ((try? $1.get())?.memoryCost ?? 0) }
    }

    func animatedImageDuration(at index: Int) -> TimeInterval {
        original.animatedImageDuration(at: index)
    }
}
