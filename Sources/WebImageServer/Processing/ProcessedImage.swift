import Foundation
import WebImage

/// A result: its encoded bytes and what they hold.
public struct ProcessedImage: Sendable {
    public var data: Data
    public var format: ImageFormat
    public var pixelWidth: Int
    public var pixelHeight: Int
    /// Frames in the result (1 unless an animation was kept).
    public var frameCount: Int
    /// The source's header, as read before decoding.
    public var source: ImageHeader

    public init(data: Data, format: ImageFormat, pixelWidth: Int, pixelHeight: Int, frameCount: Int, source: ImageHeader) {
        self.data = data
        self.format = format
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.frameCount = frameCount
        self.source = source
    }
}
