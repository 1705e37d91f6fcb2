import Foundation
import WebImage

/// A result: its encoded bytes and what they hold.
public struct ProcessedImage: Sendable {
    /// The encoded result.
    public var data: Data
    /// Its format: the plan's, or PNG/JPEG for an AVIF under 16 pixels a side.
    public var format: ImageFormat
    /// Its size in pixels (one frame's, for an animation).
    public var pixelWidth: Int
    public var pixelHeight: Int
    /// Frames in the result (1 unless an animation was kept).
    public var frameCount: Int
    /// The source's header, as read before decoding.
    public var source: ImageHeader
    /// What the request's limits were checked against; nil when none were (`raw`).
    var sourceFacts: SourceFacts?

    /// A result of `format`, `pixelWidth` x `pixelHeight`, from the source `source`.
    public init(data: Data, format: ImageFormat, pixelWidth: Int, pixelHeight: Int, frameCount: Int, source: ImageHeader) {
        self.data = data
        self.format = format
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.frameCount = frameCount
        self.source = source
    }

    /// The source itself as the result (`raw`, `skip_processing`).
    init(unprocessed source: Data, header: ImageHeader) {
        self.init(
            data: source, format: header.format, pixelWidth: header.pixelWidth, pixelHeight: header.pixelHeight,
            frameCount: header.frameCount, source: header
        )
    }
}
