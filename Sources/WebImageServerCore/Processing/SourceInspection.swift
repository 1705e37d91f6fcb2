import Foundation
import WebImage

/// A source's header, read before any pixel is decoded, and coding failures as the statuses they
/// answer.
enum SourceInspection {
    /// The header of `data` (of its embedded thumbnail, with `embeddedThumbnail`, when it has
    /// one): 422 when it is not an image the server reads.
    static func header(of data: Data, embeddedThumbnail: Bool = false) throws(ImageServerError) -> ImageHeader {
        do {
            return try ImageHeader(probing: data, embeddedThumbnail: embeddedThumbnail)
        } catch {
            throw mapped(error)
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

/// What a request's limits are checked against: the source's size, frames and bytes, as read
/// from its header before any pixel is decoded. Kept with the result, so that a cached result is
/// refused by a URL's own limits as its making would have been (those limits are not in the
/// result's key: they decide whether a result is made, not what it is; `max_animation_frames`,
/// which decides which frames are processed, is).
struct SourceFacts: Codable, Sendable, Hashable {
    /// Drawn at the size asked for, within the resolution limit (SVG, PDF): no pixel limit.
    var isVector: Bool
    var pixelWidth: Int
    var pixelHeight: Int
    /// Frames processed: an animation's first `maxAnimationFrames`, 1 when it is flattened to
    /// its first frame.
    var frames: Int
    var byteCount: Int

    init(header: ImageHeader, frames: Int, byteCount: Int) {
        isVector = SourceInspection.isVector(header)
        pixelWidth = header.pixelWidth
        pixelHeight = header.pixelHeight
        self.frames = frames
        self.byteCount = byteCount
    }

    /// Throws 422 when the source is over a limit of `options` (imgproxy's `checkImageSize`):
    /// more bytes than `maxSourceFileSize`, more pixels than `maxSourceResolution` (frames
    /// processed x canvas), or, when `maxAnimationFrameResolution` is set, frames larger than it.
    func check(_ options: ProcessingOptions) throws(ImageServerError) {
        if options.maxSourceFileSize > 0, byteCount > options.maxSourceFileSize {
            throw .sourceTooLarge("\(byteCount) bytes, more than the limit of \(options.maxSourceFileSize)")
        }
        guard !isVector else { return }
        let canvas = pixelWidth.multipliedReportingOverflow(by: pixelHeight)
        if frames > 1, options.maxAnimationFrameResolution > 0 {
            if canvas.overflow || canvas.partialValue > options.maxAnimationFrameResolution {
                throw .sourceTooLarge("frames of \(pixelWidth)x\(pixelHeight), more than \(options.maxAnimationFrameResolution) pixels")
            }
            return
        }
        let total = canvas.partialValue.multipliedReportingOverflow(by: max(1, frames))
        if canvas.overflow || total.overflow || total.partialValue > options.maxSourceResolution {
            throw .sourceTooLarge("\(frames) frame(s) of \(pixelWidth)x\(pixelHeight), more than \(options.maxSourceResolution) pixels")
        }
    }
}
