import Foundation
import LibVips

/// The libvips saver for one format and the preparation an image needs before it.
struct VipsSaver: Sendable {
    let format: ImageFormat
    private let operation: String
    private let fixedOptions: String
    /// Lossy formats take a quality and can be searched for a byte budget.
    let isLossy: Bool
    let supportsAlpha: Bool
    let supportsAnimation: Bool

    init?(format: ImageFormat) {
        self.format = format
        switch format {
        case .jpeg: (operation, fixedOptions, isLossy, supportsAlpha, supportsAnimation) = ("jpegsave_buffer", "strip=true", true, false, false)
        case .png: (operation, fixedOptions, isLossy, supportsAlpha, supportsAnimation) = ("pngsave_buffer", "strip=true", false, true, false)
        case .gif: (operation, fixedOptions, isLossy, supportsAlpha, supportsAnimation) = ("gifsave_buffer", "strip=true", false, true, true)
        case .webP: (operation, fixedOptions, isLossy, supportsAlpha, supportsAnimation) = ("webpsave_buffer", "strip=true", true, true, true)
        case .heic, .heif: (operation, fixedOptions, isLossy, supportsAlpha, supportsAnimation) = ("heifsave_buffer", "compression=hevc,strip=true", true, true, false)
        case .avif: (operation, fixedOptions, isLossy, supportsAlpha, supportsAnimation) = ("heifsave_buffer", "compression=av1,strip=true", true, true, false)
        case .tiff: (operation, fixedOptions, isLossy, supportsAlpha, supportsAnimation) = ("tiffsave_buffer", "compression=deflate,strip=true", false, true, false)
        case .jxl: (operation, fixedOptions, isLossy, supportsAlpha, supportsAnimation) = ("jxlsave_buffer", "strip=true", true, true, false)
        default: return nil
        }
    }

    /// The image to save: an animation strip (all frames top to bottom, with timing) when the
    /// format animates and the image is animated, else the first frame.
    func frames(of image: Image, options: ImageCoderOptions) throws -> VipsImageRef {
        guard supportsAnimation, image.isAnimated, !options.encodeFirstFrameOnly else {
            let still = try image.makeVipsImage()
            // Decoded pixels are RGBA even when opaque: drop that band rather than flatten it.
            return !image.hasAlpha && still.bands == 4 ? try still.call("extract_band", "band=0,n=3") : still
        }
        let frames = try Self.animationFrames(of: image, format: format, options: options)
        let strip = try VipsImageRef.joinVertically(frames.map { $0.image.bands == 4 ? $0.image : try $0.image.addingOpaqueAlpha() })
        return try strip.withAnimation(
            pageHeight: frames[0].image.height, delays: frames.map(\.delay), loop: Self.storableLoopCount(image.loopCount)
        )
    }

    /// Every frame of an animated image with its delay in milliseconds, scaled down to fit
    /// `encodeMaxPixelSize` when set (all frames alike, durations kept).
    static func animationFrames(
        of image: Image, format: ImageFormat, options: ImageCoderOptions
    ) throws -> [(image: VipsImageRef, delay: Int)] {
        var frames: [(image: VipsImageRef, delay: Int)] = []
        for index in 0..<image.frameCount {
            guard let frame = image.frame(at: index) else {
                throw ImageCodingError.encodingFailed(format: format, reason: "frame \(index) cannot be decoded")
            }
            guard frame.pixelWidth == image.pixelWidth, frame.pixelHeight == image.pixelHeight else {
                throw ImageCodingError.encodingFailed(format: format, reason: "frame \(index) has another size")
            }
            let pixels = try frame.makeVipsImage().scaledDown(toFit: options.encodeMaxPixelSize)
            frames.append((pixels, milliseconds(image.frameDuration(at: index))))
        }
        return frames
    }

    /// A frame duration in whole milliseconds: durations come from any `AnimatedImageProvider`,
    /// so one that is not a finite, non-negative number gives 0 rather than a trap in `Int(_:)`.
    static func milliseconds(_ seconds: TimeInterval) -> Int {
        let value = (seconds * 1000).rounded()
        guard value >= 0 else { return 0 }
        return Int(min(value, Double(Int32.max)))
    }

    /// GIF (the NETSCAPE extension) and WebP (ANIM) store the loop count in 16 bits: a larger
    /// count, such as an APNG's up to 2^32 - 1, becomes the most they can store rather than
    /// wrapping around (2^31 would wrap to 0, which means forever); a negative one means forever.
    static func storableLoopCount(_ loop: Int) -> Int {
        min(max(loop, 0), Int(UInt16.max))
    }

    /// Scales down to `encodeMaxPixelSize` (still images) and flattens alpha the format lacks.
    func preparing(_ image: VipsImageRef, options: ImageCoderOptions) throws(VipsError) -> VipsImageRef {
        var image = image
        // Animation strips were scaled frame by frame (`animationFrames`).
        if image.pageHeight == image.height { image = try image.scaledDown(toFit: options.encodeMaxPixelSize) }
        if !supportsAlpha, image.hasAlpha {
            let background = options.encodeBackgroundColor ?? .white
            image = try image.flattened(red: Double(background.red), green: Double(background.green), blue: Double(background.blue))
        }
        return image
    }

    func save(_ image: VipsImageRef, quality: Double) throws(VipsError) -> Data {
        try image.save(operation, options: options(quality: Self.qualityValue(quality)))
    }

    /// The best quality whose output fits in `maxBytes`, or the smallest output if none does.
    func saveFitting(_ image: VipsImageRef, maxBytes: Int, quality: Double) throws(VipsError) -> Data {
        // Decode once: every attempt below encodes the same pixels.
        let isStrip = image.pageHeight < image.height
        let source = isStrip ? image : try VipsImageRef.wrapping(image.render())
        var high = Self.qualityValue(quality)
        let first = try source.save(operation, options: options(quality: high))
        if first.count <= maxBytes { return first }
        var low = 1
        var best: Data?
        var smallest = first
        high -= 1
        while low <= high {
            let middle = (low + high) / 2
            let attempt = try source.save(operation, options: options(quality: middle))
            if attempt.count < smallest.count { smallest = attempt }
            if attempt.count <= maxBytes {
                best = attempt
                low = middle + 1
            } else {
                high = middle - 1
            }
        }
        if let best { return best }
        let lowest = try source.save(operation, options: options(quality: 1))
        return lowest.count < smallest.count ? lowest : smallest
    }

    private func options(quality: Int) -> String {
        isLossy ? "Q=\(quality)," + fixedOptions : fixedOptions
    }

    /// libvips' Q (1...100) for a 0...1 quality; clamped before the conversion to `Int`, which
    /// would trap on a caller's 1e300.
    static func qualityValue(_ quality: Double) -> Int {
        guard quality.isFinite else { return 100 }
        return Int(min(100, max(1, (quality * 100).rounded())))
    }
}

extension VipsImageRef {
    /// This image scaled down (aspect kept) to fit `size` in pixels, when it is larger; a side
    /// of `size` under one pixel means no limit (`encodeMaxPixelSize`'s zero).
    func scaledDown(toFit size: CGSize) throws(VipsError) -> VipsImageRef {
        let box = size.pixelBox(rounding: .towardZero)
        guard box.width >= 1, box.height >= 1, width > box.width || height > box.height else { return self }
        return try call("thumbnail_image", "width=\(box.width),height=\(box.height),size=down")
    }
}
