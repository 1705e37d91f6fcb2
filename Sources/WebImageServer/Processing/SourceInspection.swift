import Foundation
import WebImage

/// A source's header checked against the request's limits before any pixel is decoded
/// (imgproxy's `checkImageSize`, with this server's frame limit).
enum SourceInspection {
    /// The header of `data`: 422 when it is not an image the server reads.
    static func header(of data: Data) throws(ImageServerError) -> ImageHeader {
        do {
            return try ImageHeader(probing: data)
        } catch {
            throw mapped(error)
        }
    }

    /// Throws 422 when the source asks for more than the limits allow: more frames than
    /// `maxAnimationFrames`, more pixels than `maxSourceResolution` (frames x canvas), or,
    /// when `maxAnimationFrameResolution` is set, frames larger than it. `frames` is the
    /// number processed (1 when an animation is flattened to its first frame). Vector sources
    /// are drawn at a size within the limit instead.
    static func checkLimits(_ header: ImageHeader, frames: Int, options: ProcessingOptions) throws(ImageServerError) {
        guard !isVector(header) else { return }
        if frames > 1, frames > options.maxAnimationFrames {
            throw .sourceTooLarge("\(frames) frames, more than the limit of \(options.maxAnimationFrames)")
        }
        let canvas = header.pixelWidth.multipliedReportingOverflow(by: header.pixelHeight)
        if frames > 1, options.maxAnimationFrameResolution > 0 {
            if canvas.overflow || canvas.partialValue > options.maxAnimationFrameResolution {
                throw .sourceTooLarge("frames of \(header.pixelWidth)x\(header.pixelHeight), more than \(options.maxAnimationFrameResolution) pixels")
            }
            return
        }
        let total = canvas.partialValue.multipliedReportingOverflow(by: max(1, frames))
        if canvas.overflow || total.overflow || total.partialValue > options.maxSourceResolution {
            throw .sourceTooLarge("\(frames) frame(s) of \(header.pixelWidth)x\(header.pixelHeight), more than \(options.maxSourceResolution) pixels")
        }
    }

    static func isVector(_ header: ImageHeader) -> Bool {
        header.format == .svg || header.format == .pdf
    }

    /// A coding failure as the status it answers: a limit 422 "too large" (pixels, work, time,
    /// an animation too large to encode), anything else 422 "broken or unsupported".
    static func mapped(_ error: ImageCodingError) -> ImageServerError {
        switch error {
        case .tooManyPixels, .overLimit, .overEncodeLimit: .sourceTooLarge(error.description)
        default: .unreadableSource(error.description)
        }
    }
}
