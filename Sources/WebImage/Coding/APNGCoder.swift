import Foundation
import LibVips

/// Animated PNG: decodes every frame (libvips 8.14 reads only the default image), composited
/// with the APNG dispose and blend rules; frames are rendered on demand, in order, from a
/// remembered canvas. Encodes animated images written as PNG as APNG (frames, durations and
/// loop count kept, as SDWebImage writes them); still PNG goes to `VipsImageCoder`.
public final class APNGCoder: AnimatedImageCoder, ThrowingImageCoder {
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
    /// is within the pixel limit (checked before any pixel is allocated).
    private static func animation(of data: Data, options: ImageCoderOptions) throws(ImageCodingError) -> APNGAnimation {
        try DecodeLimits.check(data, format: .png, options: options)
        let structure = try APNGStructure(data: data, maxPixelCount: options.decodeMaxPixelCount)
        guard structure.frames.count > 1 else { throw .corruptData(format: .png, reason: "not an animated PNG") }
        try DecodeLimits.checkAnimation(
            frameCount: structure.frames.count, width: structure.width, height: structure.height, format: .png, options: options
        )
        return APNGAnimation(data: data, structure: structure, options: options)
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
            let frames = try VipsSaver.animationFrames(of: image, format: .png, options: options)
            let pngs = try frames.map { frame in
                // One pixel layout for every frame: RGB when the animation is opaque, else RGBA.
                let pixels = image.hasAlpha ? try frame.image.withAlpha() : try frame.image.call("extract_band", "band=0,n=3")
                return (png: try pixels.save("pngsave_buffer", options: "strip=true"), delay: frame.delay)
            }
            return try APNGWriter.animation(of: pngs, loopCount: image.loopCount)
        } catch let error as ImageCodingError {
            throw error
        } catch let error as VipsError {
            throw .encodingFailed(format: .png, reason: error.message)
        } catch {
            throw .encodingFailed(format: .png, reason: "\(error)")
        }
    }


    public func decode(_ data: Data, options: ImageCoderOptions) throws(ImageCodingError) -> Image {
        if options.decodeFirstFrameOnly { return try VipsImageCoder.shared.decode(data, options: options) }
        let animation = try Self.animation(of: data, options: options)
        let coder = APNGCoder(animation: animation)
        let poster = try animation.frame(at: 0)
        return Image(
            pipeline: .bitmap(poster), pixels: poster, pixelWidth: poster.width, pixelHeight: poster.height,
            scale: options.decodeScaleFactor, format: .png, hasAlpha: true,
            animatedImageProvider: coder, sourceByteCount: data.count
        )
    }

    // MARK: AnimatedImageProvider

    public var animatedImageData: Data? { animation?.data }
    public var animatedImageFrameCount: Int { animation?.structure.frames.count ?? 0 }
    public var animatedImageLoopCount: Int { animation?.structure.loopCount ?? 0 }

    public func animatedImageFrame(at index: Int) -> Image? {
        guard let animation, let pixels = try? animation.frame(at: index) else { return nil }
        return Image(bitmap: pixels, scale: animation.scale, format: .png)
    }

    public func animatedImageDuration(at index: Int) -> TimeInterval {
        guard let frames = animation?.structure.frames, frames.indices.contains(index) else { return 0 }
        return frames[index].delay
    }
}

/// One APNG's frames and the canvas they are drawn on.
final class APNGAnimation: Sendable {
    let data: Data
    let structure: APNGStructure
    let scale: Double
    private let thumbnailBox: (width: Int, height: Int, stretch: Bool)?
    /// The canvas after the last frame drawn, and its index; frames are drawn in order.
    private let canvas: Locked<(index: Int, pixels: [UInt8], beforeLast: [UInt8])?> = Locked(nil)

    init(data: Data, structure: APNGStructure, options: ImageCoderOptions) {
        self.data = data
        self.structure = structure
        self.scale = options.decodeScaleFactor
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
            throw .corruptData(format: .png, reason: "no frame \(index)")
        }
        let pixels = try canvas.withLock { state throws(ImageCodingError) -> [UInt8] in
            // Going back (or a first call) starts over from an empty canvas.
            let current = state.flatMap { $0.index < index ? $0 : nil }
            var pixels = current?.pixels ?? []
            var beforeLast = current?.beforeLast ?? []
            var next = (current?.index ?? -1) + 1
            while next <= index {
                // Decoded first: a first frame that does not decode throws before the canvas
                // (which APNGStructure kept within the pixel limit) is allocated.
                let decoded = try decodedPixels(of: structure.frames[next])
                if pixels.isEmpty { pixels = [UInt8](repeating: 0, count: structure.width * structure.height * 4) }
                if next > 0 { dispose(structure.frames[next - 1], on: &pixels, restoring: beforeLast, isFirst: next == 1) }
                beforeLast = pixels
                draw(decoded, of: structure.frames[next], on: &pixels)
                next += 1
            }
            state = (index, pixels, beforeLast)
            return pixels
        }
        let full = pixels.withUnsafeBytes {
            PixelBuffer(copying: $0, width: structure.width, height: structure.height, bands: 4)
        }
        guard let box = thumbnailBox else { return full }
        do {
            return try VipsImageRef.wrapping(full)
                .call("thumbnail_image", "width=\(box.width),height=\(box.height),size=\(box.stretch ? "force" : "down")")
                .renderRGBA()
        } catch {
            throw .corruptData(format: .png, reason: error.message)
        }
    }

    private func dispose(_ frame: APNGStructure.Frame, on pixels: inout [UInt8], restoring previous: [UInt8], isFirst: Bool) {
        switch frame.dispose {
        case .none:
            return
        case .previous where !isFirst:
            forEachRow(of: frame) { start, count in
                pixels.replaceSubrange(start..<(start + count), with: previous[start..<(start + count)])
            }
        case .background, .previous:
            // A first frame's "previous" means background (APNG specification).
            forEachRow(of: frame) { start, count in
                pixels.replaceSubrange(start..<(start + count), with: repeatElement(0, count: count))
            }
        }
    }

    /// The frame's own pixels (its region only), as RGBA8.
    private func decodedPixels(of frame: APNGStructure.Frame) throws(ImageCodingError) -> PixelBuffer {
        let decoded: PixelBuffer
        do {
            decoded = try VipsImageRef.load("pngload_buffer", data: frame.png, options: "fail_on=truncated")
                .normalizedToSRGB().renderRGBA()
        } catch {
            throw .corruptData(format: .png, reason: error.message)
        }
        guard decoded.width == frame.width, decoded.height == frame.height else {
            throw .corruptData(format: .png, reason: "frame size does not match its fcTL")
        }
        return decoded
    }

    private func draw(_ decoded: PixelBuffer, of frame: APNGStructure.Frame, on pixels: inout [UInt8]) {
        decoded.withUnsafeBytes { source in
            var row = 0
            forEachRow(of: frame) { start, count in
                let sourceRow = row * count
                for offset in stride(from: 0, to: count, by: 4) {
                    let target = start + offset
                    let alpha = Int(source[sourceRow + offset + 3])
                    if !frame.blendsOver || alpha == 255 {
                        for channel in 0..<4 { pixels[target + channel] = source[sourceRow + offset + channel] }
                    } else if alpha > 0 {
                        Self.blend(source: source, at: sourceRow + offset, over: &pixels, at: target)
                    }
                }
                row += 1
            }
        }
    }

    /// Straight-alpha "source over destination".
    private static func blend(source: UnsafeRawBufferPointer, at sourceIndex: Int, over pixels: inout [UInt8], at target: Int) {
        let sourceAlpha = Double(source[sourceIndex + 3]) / 255
        let targetAlpha = Double(pixels[target + 3]) / 255
        let alpha = sourceAlpha + targetAlpha * (1 - sourceAlpha)
        for channel in 0..<3 {
            let value = (Double(source[sourceIndex + channel]) * sourceAlpha
                + Double(pixels[target + channel]) * targetAlpha * (1 - sourceAlpha)) / alpha
            pixels[target + channel] = UInt8(max(0, min(255, value.rounded())))
        }
        pixels[target + 3] = UInt8(max(0, min(255, (alpha * 255).rounded())))
    }

    /// Calls `body(byteOffset, byteCount)` for each canvas row the frame covers.
    private func forEachRow(of frame: APNGStructure.Frame, _ body: (Int, Int) -> Void) {
        for y in frame.y..<(frame.y + frame.height) {
            body((y * structure.width + frame.x) * 4, frame.width * 4)
        }
    }
}
