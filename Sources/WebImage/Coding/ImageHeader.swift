import Foundation
internal import ImageEngine

/// What an image file's header says, read without decoding any pixel: cheap enough to run on
/// every upload or proxy request before deciding whether to decode. JPEG, PNG and WebP headers
/// can be read from a prefix of the file; GIF and PDF need the whole file (a cut one is
/// refused here, as its decode would be).
public struct ImageHeader: Sendable, Equatable {
    /// The format, from the file's bytes.
    public var format: ImageFormat
    /// Width in pixels, as shown upright (EXIF orientation applied).
    public var pixelWidth: Int
    /// Height in pixels, as shown upright.
    public var pixelHeight: Int
    /// Frames in the file (1 for a still image).
    public var frameCount: Int
    /// Times an animation plays, 0 = forever (0 for a still image).
    public var loopCount: Int
    /// EXIF orientation 1...8 (1 when absent).
    public var orientation: Int
    /// Whether the image has an alpha channel (or a transparent colour).
    public var hasAlpha: Bool
    /// What the file says about its colour: primaries, transfer (PQ, HLG for HDR), bits a
    /// component, headroom.
    public var colorInfo: ImageColorInfo

    /// Reads the header of `data`, or with `embeddedThumbnail` that of a HEIC or AVIF file's
    /// embedded thumbnail when it has one (what `decodeEmbeddedThumbnail` decodes); throws when
    /// the format is unknown or the header is corrupt.
    public init(probing data: Data, embeddedThumbnail: Bool = false) throws(ImageCodingError) {
        var options = ImageCoderOptions()
        options.decodeMaxPixelCount = .max
        // The header of a long animation is read as it is; the limits on work (scans, metadata) stay.
        options.decodeMaxFrameCount = .max
        options.decodeMaxTotalPixelCount = .max
        try self.init(probing: data, embeddedThumbnail: embeddedThumbnail, options: options)
    }

    /// Reads the header of `data` under `options`' decode limits (pixels, frames, metadata),
    /// refusing what a decode with them would refuse (`ImageInfo`).
    init(probing data: Data, embeddedThumbnail: Bool = false, options: ImageCoderOptions) throws(ImageCodingError) {
        guard !data.isEmpty else { throw .emptyData }
        let format = ImageFormat(sniffing: data)
        guard let loader = VipsLoader(format: format, embeddedThumbnail: embeddedThumbnail) else {
            throw format == .undefined ? .unknownFormat : .unsupportedFormat(format)
        }
        let header: VipsHeader
        if format == .jpeg, !embeddedThumbnail, let segments = try Self.jpegHeader(of: data, options: options) {
            header = segments
        } else {
            header = try loader.header(of: data, options: options)
        }
        let animation = format == .png ? APNGStructure.animationControl(in: data) : nil
        self.format = format
        self.pixelWidth = header.width
        self.pixelHeight = header.height
        self.frameCount = animation?.frameCount ?? header.pageCount
        self.loopCount = animation?.loopCount ?? (header.pageCount > 1 ? header.loop : 0)
        self.orientation = header.orientation
        self.hasAlpha = header.hasAlpha
        self.colorInfo = header.colorInfo
    }

    /// A JPEG's header from its segments, as the TurboJPEG coder reads it (TurboJPEG's frame
    /// header, `JPEGMetadata`), with the limits and the colour libvips' header read gives:
    /// that read builds a libvips image, which an image server would pay on every request. Nil
    /// for the files the coder leaves to libvips (CMYK, a frame TurboJPEG does not read,
    /// segments that cannot be walked), whose header libvips reads.
    private static func jpegHeader(of data: Data, options: ImageCoderOptions) throws(ImageCodingError) -> VipsHeader? {
        guard let stored = TurboJPEG.header(of: data), !stored.isCMYK, let metadata = JPEGMetadata(data) else { return nil }
        try DecodeLimits.check(data, format: .jpeg, options: options)
        var header = VipsHeader(
            storedWidth: stored.width, storedHeight: stored.height, orientation: metadata.orientation, pageCount: 1,
            hasAlpha: false, loop: 0, delays: [], metadata: metadata.imageMetadata
        )
        header.colorInfo = SourceColour.info(nil, bytesPerSample: 1, hasICCProfile: metadata.iccProfile != nil)
        header.colorInfo.isGrey = stored.isGrey
        if let gainMap = GainMapJPEG(data) {
            header.gainMap = gainMap
            header.colorInfo.gainMap = gainMap.info
        }
        try header.checkPixelLimit(options, format: .jpeg)
        return header
    }
}
