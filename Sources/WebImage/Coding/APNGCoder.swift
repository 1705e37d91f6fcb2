import Foundation
internal import ImageEngine

/// Animated PNG: decodes every frame (libvips 8.14 reads only the default image), composited
/// with the APNG dispose and blend rules; frames are rendered on demand, in order, from a
/// remembered canvas. Encodes animated images written as PNG as APNG (frames, durations and
/// loop count kept, as SDWebImage writes them); still PNG goes to `VipsImageCoder`.
public final class APNGCoder: AnimatedImageCoder, ThrowingImageCoder, ThrowingAnimatedImageProvider {
    private let animation: APNGAnimation?

    /// The stateless coder registered in `ImageCodersManager`.
    public init() {
        animation = nil
    }

    private init(animation: APNGAnimation) {
        self.animation = animation
    }

    public init?(animatedImageData data: Data, options: ImageCoderOptions) {
        guard let animation = try? Self.animation(of: data, options: options) else { return nil }
        self.animation = animation
    }

    /// The animation in `data`: a whole, well-formed APNG of more than one frame, whose canvas
    /// is within the pixel limit (checked before any pixel is allocated), cut to the frames
    /// `decodeFrameLimit` keeps.
    private static func animation(of data: Data, options: ImageCoderOptions) throws(ImageCodingError) -> APNGAnimation {
        // The structure read (a CRC walk over every chunk: 0.1 s for a 820 KB file in the debug
        // build) counts in the first pass's budget, which the poster's decode starts.
        let budget = WorkBudget(limit: options.decodeTimeBudget.animation)
        let structure = try budget.counting { () throws(ImageCodingError) -> APNGStructure in
            try DecodeLimits.check(data, format: .png, options: options)
            var structure = try APNGStructure(data: data, maxPixelCount: options.decodeMaxPixelCount)
            guard structure.frames.count > 1 else { throw .corruptData(format: .png, reason: "not an animated PNG") }
            structure.frames.removeSubrange(DecodeLimits.keptFrames(of: structure.frames.count, options)...)
            try DecodeLimits.checkAnimation(
                frameCount: structure.frames.count, width: structure.width, height: structure.height, format: .png, options: options
            )
            return structure
        }
        return APNGAnimation(data: data, structure: structure, options: options, firstPassBudget: budget)
    }

    // MARK: ImageCoder

    public func canDecode(from data: Data) -> Bool {
        guard let control = APNGStructure.animationControl(in: data) else { return false }
        return control.frameCount > 1
    }

    public func canEncode(to format: ImageFormat) -> Bool { format == .png }

    public func encode(_ image: Image, format: ImageFormat, options: ImageCoderOptions) throws(ImageCodingError) -> Data {
        guard format == .png else { throw .unsupportedFormat(format) }
        guard image.isAnimated, !options.encodeFirstFrameOnly else {
            return try VipsImageCoder.shared.encode(image, format: .png, options: options)
        }
        do {
            // A frame at a time: only the encoded frames are held.
            let frames = try AnimationFrames(of: image, format: .png, options: options)
            let kept = options.keptMetadata(of: image)
            let pngs = try (0..<frames.count).map { index in
                let frame = try frames.frame(at: index)
                // One pixel layout for every frame: RGB when the animation is opaque, else RGBA.
                var pixels = image.hasAlpha ? frame : try frame.extractingBands(from: 0, count: 3)
                // The file takes its metadata chunks from the first frame's PNG (`APNGWriter`).
                let withMetadata = kept != nil && index == 0
                if withMetadata, let kept { pixels = try pixels.replacingMetadata(with: kept) }
                return (png: try pixels.save("pngsave_buffer", options: "strip=\(!withMetadata)"), delay: frames.delays[index])
            }
            return try APNGWriter.animation(of: pngs, loopCount: image.loopCount)
        } catch let error as ImageCodingError {
            throw error
        } catch let error as VipsError {
            throw ImageCodingError(encoding: .png, from: image.format, error)
        } catch {
            throw .encodingFailed(format: .png, reason: "\(error)")
        }
    }


    public func decode(_ data: Data, options: ImageCoderOptions) throws(ImageCodingError) -> Image {
        if options.decodeFirstFrameOnly || options.decodeFrameLimit <= 1 { return try VipsImageCoder.shared.decode(data, options: options) }
        let animation = try Self.animation(of: data, options: options)
        let coder = APNGCoder(animation: animation)
        let poster = try animation.frame(at: 0)
        return Image(
            recipe: .bitmap(poster), pixels: poster, pixelWidth: poster.width, pixelHeight: poster.height,
            scale: options.decodeScaleFactor, format: .png, hasAlpha: true,
            animatedImageProvider: coder, sourceByteCount: data.count
        )
    }

    // MARK: AnimatedImageProvider

    public var animatedImageData: Data? { animation?.data }
    public var animatedImageFrameCount: Int { animation?.structure.frames.count ?? 0 }
    public var animatedImageLoopCount: Int { animation?.structure.loopCount ?? 0 }

    /// Frame `index` composited; `overLimit` once the pass over the frames has spent its time
    /// budget (`decodeTimeBudget.animation`). The stateless coder has no frames.
    public func decodeFrame(at index: Int) throws(ImageCodingError) -> Image {
        guard let animation else { throw .noFrame(index, of: 0, format: .png) }
        return Image(bitmap: try animation.frame(at: index), scale: animation.scale, format: .png)
    }

    public func animatedImageDuration(at index: Int) -> TimeInterval {
        guard let frames = animation?.structure.frames, frames.indices.contains(index) else { return 0 }
        return frames[index].delay
    }
}

/// One APNG's frames and the canvas they are drawn on, in place: a frame costs its own pixels
/// (drawn tile by tile), the area it covers when it is to be restored afterwards, and the copy
/// handed out (the last frame takes the canvas itself; a thumbnail is made straight from it),
/// never a copy of the canvas kept per frame. A canvas or copy that memory cannot hold is an error, not an abort.
final class APNGAnimation: Sendable {
    let data: Data
    let structure: APNGStructure
    let scale: Double
    private let thumbnailBox: (width: Int, height: Int, stretch: Bool)?
    /// The canvas after the last frame drawn, its index, and the area that frame covered as it
    /// was before (when the frame's disposal restores it); frames are drawn in order.
    private let canvas = Locked<CanvasState?>(nil)

    /// `@unchecked Sendable`: only touched under `canvas`'s lock.
    private struct CanvasState: @unchecked Sendable {
        var index: Int
        var pixels: RGBACanvas
        var covered: PixelBuffer?
        /// The time budget of this pass over the frames (from the first).
        var budget: WorkBudget
    }
    /// The CPU time a pass over the frames may take in libvips (their decodes, the thumbnails).
    private let budgetLimit: Duration
    /// The first pass's budget, made as the structure was read (which it counts), until the
    /// first pass takes it.
    private let firstPassBudget: Locked<WorkBudget?>

    init(data: Data, structure: APNGStructure, options: ImageCoderOptions, firstPassBudget: WorkBudget) {
        self.data = data
        self.structure = structure
        self.scale = options.decodeScaleFactor
        self.budgetLimit = options.decodeTimeBudget.animation
        self.firstPassBudget = Locked(firstPassBudget)
        let header = VipsHeader(
            storedWidth: structure.width, storedHeight: structure.height, orientation: 1, pageCount: 1,
            hasAlpha: true, loop: 0, delays: []
        )
        if case let .thumbnail(width, height, stretch) = DecodePlan(header: header, options: options).mode {
            thumbnailBox = (width, height, stretch)
        } else {
            thumbnailBox = nil
        }
    }

    /// Frame `index` composited on the canvas, as RGBA8 (thumbnailed if the options asked).
    func frame(at index: Int) throws(ImageCodingError) -> PixelBuffer {
        guard structure.frames.indices.contains(index) else {
            throw .noFrame(index, of: structure.frames.count, format: .png)
        }
        do {
            return try WorkBudget.attributingStops { () throws(VipsError) -> PixelBuffer in try canvas.withLock { state throws(VipsError) -> PixelBuffer in
                // Going back (or a first call) starts over from an empty canvas.
                var current = state.flatMap { $0.index < index ? $0 : nil }
                // Dropped first: a failure below leaves a canvas between frames.
                state = nil
                var next = (current?.index ?? -1) + 1
                // A pass from the first frame has a time budget of its own (the first pass, the
                // one the structure read began).
                let budget = current?.budget ?? firstPassBudget.withLock { first in defer { first = nil }; return first }
                    ?? WorkBudget(limit: budgetLimit)
                while next <= index {
                    try budget.check()
                    // Its work in this thread counts too: drawing, copies, what libpng decodes.
                    try budget.stopping { () throws(VipsError) in
                        // Opened first: a first frame whose header does not load throws before the
                        // canvas (which APNGStructure kept within the pixel limit) is allocated.
                        let frame = structure.frames[next]
                        let image = try frameImage(frame, budget: budget)
                        var working: CanvasState
                        if let current {
                            working = current
                        } else {
                            working = CanvasState(index: -1, pixels: try RGBACanvas(width: structure.width, height: structure.height), budget: budget)
                        }
                        if next > 0 { Self.dispose(structure.frames[next - 1], on: &working, isFirst: next == 1) }
                        if frame.dispose == .previous && next > 0 {
                            working.covered = try working.pixels.copy(x: frame.x, y: frame.y, width: frame.width, height: frame.height)
                        }
                        try working.pixels.draw(image, x: frame.x, y: frame.y, blendingOver: frame.blendsOver)
                        working.index = next
                        current = working
                    }
                    next += 1
                }
                guard let current else { throw VipsError("no frame \(index)") }
                // The last frame at full size takes the canvas itself: no copy beside it.
                if index == structure.frames.count - 1 && thumbnailBox == nil { return current.pixels.takePixels() }
                let pixels = try budget.stopping { () throws(VipsError) in try output(of: current.pixels, budget: budget) }
                state = current
                return pixels
            } }
        } catch {
            throw ImageCodingError(decoding: .png, error)
        }
    }

    /// What the caller gets of the canvas: a copy, or the thumbnail made from it (within
    /// `budget`) by our resampler, at the size libvips' thumbnail gives: libvips' own goes
    /// through floating point to weigh the colours by alpha (4 s of CPU for a 100 MP canvas).
    private func output(of canvas: RGBACanvas, budget: WorkBudget) throws(VipsError) -> PixelBuffer {
        guard let box = thumbnailBox else { return try canvas.copy(x: 0, y: 0, width: canvas.width, height: canvas.height) }
        let header = VipsHeader(
            storedWidth: canvas.width, storedHeight: canvas.height, orientation: 1, pageCount: 1, hasAlpha: true, loop: 0, delays: []
        )
        let size = try BitmapThumbnail.libvipsSize(header: header, shrink: 1, width: box.width, height: box.height, stretch: box.stretch)
        return try canvas.withImage { image throws(VipsError) in
            try image.resampled(width: size.width, height: size.height, premultiply: true).budgeted(by: budget).renderRGBA()
        }
    }

    /// Undoes `frame` as its disposal says, before the next frame is drawn.
    private static func dispose(_ frame: APNGStructure.Frame, on state: inout CanvasState, isFirst: Bool) {
        switch frame.dispose {
        case .none:
            return
        case .previous where !isFirst:
            if let covered = state.covered { state.pixels.paste(covered, x: frame.x, y: frame.y) }
        case .background, .previous:
            // A first frame's "previous" means background (APNG specification).
            state.pixels.clear(x: frame.x, y: frame.y, width: frame.width, height: frame.height)
        }
        state.covered = nil
    }

    /// The frame's own pixels (its region only), 8-bit sRGB RGBA: small 8-bit frames without a
    /// colour profile decoded whole by libpng (libvips' fixed cost per load is most of a small
    /// frame's), others computed tile by tile as they are drawn, within `budget`.
    private func frameImage(_ frame: APNGStructure.Frame, budget: WorkBudget) throws(VipsError) -> VipsImageRef {
        let header = frame.png.dropFirst(16).prefix(9)
        if frame.width * frame.height <= BitmapThumbnail.maxPixelCount, header.count == 9, header[header.startIndex + 8] == 8,
           frame.png.range(of: Data("iCCP".utf8)) == nil,
           let pixels = try? LibPNG.decode(frame.png, maxPixels: frame.width * frame.height, allowsAlpha: true, colourProfile: nil) {
            guard pixels.width == frame.width, pixels.height == frame.height else {
                throw VipsError("frame size does not match its fcTL")
            }
            return try VipsImageRef.wrapping(pixels)
        }
        let image = try VipsImageRef.load("pngload_buffer", data: frame.png, options: "fail_on=truncated,access=sequential")
        guard image.width == frame.width, image.height == frame.height else {
            throw VipsError("frame size does not match its fcTL")
        }
        return try image.normalizedToSRGB().withAlpha().budgeted(by: budget)
    }
}
