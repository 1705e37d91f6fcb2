import Foundation
import LibVips

/// The limits on the work a small input can ask for, checked from its structure before any
/// pixel is decoded: `ImageCodingError.overLimit` when one is exceeded.
enum DecodeLimits {
    /// Checks what `data`'s structure asks for: a progressive JPEG's scans, a PNG's inflated metadata.
    static func check(_ data: Data, format: ImageFormat, options: ImageCoderOptions) throws(ImageCodingError) {
        if format == .jpeg {
            let limit = max(1, options.decodeMaxScanCount)
            if DecodeCost.progressiveJPEGScans(in: data, countingUpTo: limit) > limit {
                throw .overLimit(format: .jpeg, reason: "a progressive JPEG of more than \(limit) scans")
            }
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
