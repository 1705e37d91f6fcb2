import Foundation
internal import ImageEngine

/// The limits on the work a small input can ask for, checked from its structure before any
/// pixel is decoded: `ImageCodingError.overLimit` when one is exceeded.
enum DecodeLimits {
    /// Checks what `data`'s structure asks for: a progressive JPEG's scans, a PNG's inflated metadata.
    static func check(_ data: Data, format: ImageFormat, options: ImageCoderOptions) throws(ImageCodingError) {
        if format == .jpeg {
            let limit = max(1, options.decodeMaxScanCount)
            let scans = DecodeCost.progressiveJPEGScans(in: data, countingUpTo: limit)
            if scans > limit {
                throw .overLimit(format: .jpeg, reason: "a progressive JPEG of more than \(limit) scans")
            }
            // libjpeg holds a progressive file's coefficients whole, 2 bytes a sample, thumbnail or not.
            if scans > 0, let frame = JPEGFrame(data) {
                try checkPixelBytes(
                    width: frame.width, height: frame.height, bytesPerPixel: frame.coefficientBytesPerPixel, format: .jpeg,
                    options: options, what: "coefficients of a progressive JPEG"
                )
            }
        }
        if format == .webP {
            // Each frame is decoded at its own size before it is composed on the canvas: a frame
            // pixel costs libwebp about what 4 canvas pixels cost (249 frames of 4 MP, a
            // gigapixel, took over 20 s of CPU to thumbnail): counted so against the total.
            // Only the frames decoded (`decodeFrameLimit`) count.
            let pixels = WebPFrames.codedPixelCount(in: data, frames: max(1, options.decodeFrameLimit))
            let coded = pixels.multipliedReportingOverflow(by: webPFramePixelCost)
            if coded.overflow || coded.partialValue > options.decodeMaxTotalPixelCount {
                throw .overLimit(
                    format: .webP,
                    reason: "frames of \(pixels) pixels in all, each counted \(webPFramePixelCost) times against the limit of \(options.decodeMaxTotalPixelCount) pixels"
                )
            }
        }
        if format == .heic || format == .heif || format == .avif,
           let problem = HEIFWork.excess(in: data, maxPixelCount: options.decodeMaxPixelCount) {
            throw .overLimit(format: format, reason: problem)
        }
        if format == .tiff, let problem = TIFFDirectories.excess(in: data) {
            throw .overLimit(format: .tiff, reason: problem)
        }
        if format == .png {
            if DecodeCost.pngHasOverlongChunk(data) {
                throw .corruptData(format: .png, reason: "a metadata chunk longer than the file")
            }
            let limit = options.decodeMaxMetadataBytes
            if DecodeCost.pngInflatedMetadataBytes(in: data, countingUpTo: limit) > limit {
                throw .overLimit(format: .png, reason: "compressed metadata (iCCP, zTXt, iTXt) of more than \(limit) bytes inflated")
            }
        }
    }

    /// What decoding a pixel of an animated WebP's frame costs, in pixels of the total
    /// (`decodeMaxTotalPixelCount`, which counts frames x canvas).
    static let webPFramePixelCost = 4

    /// The bytes `decodeMaxPixelCount` 8-bit RGBA pixels take (400 MB by default): the most a
    /// decode may hold for one frame's pixels as its decoder makes them.
    static func maxPixelBytes(_ options: ImageCoderOptions) -> Int {
        let bytes = max(0, options.decodeMaxPixelCount).multipliedReportingOverflow(by: 4)
        return bytes.overflow ? .max : bytes.partialValue
    }

    /// Refuses a frame whose pixels, at `bytesPerPixel` as its decoder holds them (8 for 16-bit
    /// RGBA, 16 for float RGBA), pass `maxPixelBytes`: the pixel limit counts 8-bit RGBA pixels.
    static func checkPixelBytes(
        width: Int, height: Int, bytesPerPixel: Int, format: ImageFormat, options: ImageCoderOptions,
        what: String = "pixels"
    ) throws(ImageCodingError) {
        let limit = maxPixelBytes(options)
        let pixels = width.multipliedReportingOverflow(by: height)
        let bytes = pixels.partialValue.multipliedReportingOverflow(by: max(1, bytesPerPixel))
        if pixels.overflow || bytes.overflow || bytes.partialValue > limit {
            throw .overLimit(
                format: format,
                reason: "\(width)x\(height) \(what) of \(bytesPerPixel) bytes each, more than the limit of \(limit) bytes (decodeMaxPixelCount 8-bit RGBA pixels)"
            )
        }
    }

    /// A JPEG that TurboJPEG decoded whole and then gave up on (a libjpeg warning) goes to
    /// libvips, which decodes it again: both decodes count against the scan limit, so a
    /// progressive file of more than half the limit's scans is refused instead.
    static func checkSecondJPEGDecode(_ data: Data, options: ImageCoderOptions) throws(ImageCodingError) {
        let limit = max(1, options.decodeMaxScanCount)
        let scans = DecodeCost.progressiveJPEGScans(in: data, countingUpTo: limit)
        if 2 * scans > limit {
            throw .overLimit(
                format: .jpeg,
                reason: "a progressive JPEG of \(scans) scans with a libjpeg warning, to be decoded twice: more than \(limit) scans in all"
            )
        }
    }

    /// Of an animation's `frameCount` frames, how many a decode by `options` keeps (`decodeFrameLimit`).
    static func keptFrames(of frameCount: Int, _ options: ImageCoderOptions) -> Int {
        min(frameCount, max(1, options.decodeFrameLimit))
    }

    /// Checks an animation's frame count and total pixels (frames x canvas).
    static func checkAnimation(
        frameCount: Int, width: Int, height: Int, format: ImageFormat, options: ImageCoderOptions
    ) throws(ImageCodingError) {
        if frameCount > options.decodeMaxFrameCount {
            throw .overLimit(format: format, reason: "\(frameCount) frames, more than the limit of \(options.decodeMaxFrameCount)")
        }
        let canvas = width.multipliedReportingOverflow(by: height)
        let total = canvas.partialValue.multipliedReportingOverflow(by: frameCount)
        if canvas.overflow || total.overflow || total.partialValue > options.decodeMaxTotalPixelCount {
            throw .overLimit(
                format: format,
                reason: "\(frameCount) frames of \(width)x\(height) pixels, more than the limit of \(options.decodeMaxTotalPixelCount) pixels in all"
            )
        }
    }
}
