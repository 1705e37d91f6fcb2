import Foundation
internal import ImageEngine

/// An animated GIF, WebP or APNG whose frames are decoded when asked for: SDWebImage's
/// `SDAnimatedImage`. It keeps the original bytes (`animatedImageData`), so an `image` made
/// from it is stored in the disk cache as the original file. Still data gives a one-frame
/// `AnimatedImage` (not animated).
public final class AnimatedImage: ThrowingAnimatedImageProvider, Sendable {
    /// The first frame, a still image.
    public let posterImage: Image
    /// Pixels per point.
    public let scale: Double
    /// The format of the data.
    public let format: ImageFormat
    /// The original bytes.
    public let animatedImageData: Data?

    /// Gives the frames; nil for still data.
    private let coder: (any AnimatedImageCoder)?
    /// Frames held by `preloadAllFrames`.
    private let loadedFrames = Locked<[Image]?>(nil)

    /// An animation of `data` through the first animated coder that reads it (the animated
    /// coders of `coders` first, the last added asked first, then the built-in GIF/WebP coder),
    /// or a still image when none does; nil when the data does not decode (a decode limit or
    /// the time budget's stop included: `init(decoding:)` says which) or is vector (SVG, PDF).
    public convenience init?(
        data: Data, scale: Double = 1, options: ImageCoderOptions = ImageCoderOptions(),
        coders: ImageCodersManager = .shared
    ) {
        try? self.init(decoding: data, scale: scale, options: options, coders: coders)
    }

    /// `init(data:scale:options:coders:)`, saying why the data gives no animated image:
    /// `overLimit` when a decode limit or the time budget stopped its first frame, the coders'
    /// error when it does not decode, `unsupportedFormat` for a vector image.
    public convenience init(
        decoding data: Data, scale: Double = 1, options: ImageCoderOptions = ImageCoderOptions(),
        coders: ImageCodersManager = .shared
    ) throws(ImageCodingError) {
        var options = options
        options.decodeScaleFactor = scale
        options.decodeFirstFrameOnly = false
        let candidates = coders.coders.reversed().compactMap { $0 as? any AnimatedImageCoder }.map { type(of: $0) }
            + [VipsAnimatedImageCoder.self]
        if let coder = candidates.lazy.compactMap({ $0.init(animatedImageData: data, options: options) }).first,
           coder.animatedImageFrameCount > 1, coder.animatedImageData != nil {
            try self.init(coder: coder, scale: scale)
            return
        }
        let still = try coders.decode(data, options: options)
        guard !still.isVector else { throw .unsupportedFormat(still.format) }
        self.init(poster: still.frame(at: 0) ?? still, coder: nil, data: data, scale: scale)
    }

    /// An animation of the frames `coder` gives; nil when it has fewer than two or the first
    /// does not decode (a decode limit or the time budget's stop included).
    public convenience init?(animatedCoder coder: any AnimatedImageCoder, scale: Double = 1) {
        guard coder.animatedImageFrameCount > 1, coder.animatedImageData != nil else { return nil }
        try? self.init(coder: coder, scale: scale)
    }

    /// An animation of `coder`'s frames (two or more, its data kept), its first frame decoded now.
    private convenience init(coder: any AnimatedImageCoder, scale: Double) throws(ImageCodingError) {
        let data = coder.animatedImageData ?? Data()
        let first = try coder.frameOrError(at: 0, format: ImageFormat(sniffing: data))
        self.init(poster: first, coder: coder, data: data, scale: scale)
    }

    /// The file at `path`, its scale read from an `@2x`-style end of its name (1 otherwise).
    public convenience init?(contentsOfFile path: String) {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        self.init(data: data, scale: ImageScaleFactor.fromName(path))
    }

    private init(poster: Image, coder: (any AnimatedImageCoder)?, data: Data, scale: Double) {
        self.posterImage = poster
        self.coder = coder
        self.animatedImageData = data
        self.scale = scale > 0 && scale.isFinite ? scale : 1
        self.format = ImageFormat(sniffing: data)
    }

    /// What `data` decodes to for a caller that asked for animated images: an `AnimatedImage`'s
    /// `image` (frames on demand), or with `decodeFirstFrameOnly` a plain still image.
    public static func image(with data: Data, options: ImageCoderOptions = ImageCoderOptions()) -> Image? {
        if options.decodeFirstFrameOnly { return try? ImageCodersManager.shared.decode(data, options: options) }
        return AnimatedImage(data: data, scale: options.decodeScaleFactor, options: options)?.image
    }

    /// An `Image` showing this animation: the poster frame, with this object giving the frames.
    public var image: Image {
        coder == nil ? posterImage : Image(sharing: posterImage, animatedImageProvider: self)
    }

    /// True for more than one frame.
    public var isAnimated: Bool { animatedImageFrameCount > 1 }
    public var pixelWidth: Int { posterImage.pixelWidth }
    public var pixelHeight: Int { posterImage.pixelHeight }

    // MARK: AnimatedImageProvider

    public var animatedImageFrameCount: Int { coder?.animatedImageFrameCount ?? 1 }
    /// Times the animation plays (0 = forever); 0 for still data.
    public var animatedImageLoopCount: Int { coder?.animatedImageLoopCount ?? 0 }

    /// Frame `index`: from the preloaded frames, else decoded now (and not kept); `overLimit`
    /// when a decode limit or the time budget stopped it. (`animatedImageFrame(at:)` answers nil
    /// where this throws.)
    public func decodeFrame(at index: Int) throws(ImageCodingError) -> Image {
        guard (0..<animatedImageFrameCount).contains(index) else { throw .noFrame(index, of: animatedImageFrameCount, format: format) }
        if let loaded = loadedFrames.withLock({ $0 }), loaded.indices.contains(index) { return loaded[index] }
        guard let coder, index > 0 else { return posterImage }
        return try coder.frameOrError(at: index, format: format)
    }

    public func animatedImageDuration(at index: Int) -> TimeInterval {
        guard (0..<animatedImageFrameCount).contains(index) else { return 0 }
        return coder?.animatedImageDuration(at: index) ?? 0
    }

    // MARK: Preloading

    /// Decodes every frame now and keeps them (memory: one bitmap per frame); keeps none when a
    /// frame does not decode (`decodeAllFrames()` says why).
    public func preloadAllFrames() {
        try? decodeAllFrames()
    }

    /// `preloadAllFrames()`, saying why a frame did not decode (`overLimit` when a decode limit
    /// or the time budget stopped it); then no frame is kept.
    public func decodeAllFrames() throws(ImageCodingError) {
        guard !isAllFramesLoaded else { return }
        var frames: [Image] = []
        for index in 0..<animatedImageFrameCount {
            frames.append(try decodeFrame(at: index).decoded())
        }
        loadedFrames.withLock { $0 = frames }
    }

    /// Drops the preloaded frames.
    public func unloadAllFrames() {
        loadedFrames.withLock { $0 = nil }
    }

    /// True after `preloadAllFrames` (until `unloadAllFrames`).
    public var isAllFramesLoaded: Bool { loadedFrames.withLock { $0 != nil } }

    /// Bytes of decoded pixels: one frame's, times the frame count once all are preloaded.
    public var memoryCost: Int {
        pixelWidth * pixelHeight * 4 * (isAllFramesLoaded ? animatedImageFrameCount : 1)
    }
}
