import Foundation

/// Options for decoding and encoding: SDWebImage's `SDImageCoderOptions`, typed.
public struct ImageCoderOptions: Sendable, Equatable {
    /// Decode only the first frame of an animated image.
    public var decodeFirstFrameOnly = false
    /// The `scale` of decoded images (pixels per point).
    public var decodeScaleFactor: Double = 1
    /// With `decodeThumbnailPixelSize`: fit inside the size (true) or stretch to it (false).
    public var decodePreserveAspectRatio = true
    /// Decode straight to at most this many pixels (shrink-on-load, never upscaling); zero = full size.
    public var decodeThumbnailPixelSize: CGSize = .zero
    /// Decode large images scaled down so the RGBA bitmap stays under this many bytes; 0 = no limit.
    /// Applied only when set (SDWebImage's `scaleDownLargeImages` sets it to `defaultScaleDownLimitBytes`).
    public var decodeScaleDownLimitBytes = 0
    /// Keep the image a lazy pipeline until its pixels are read (true), or decode the pixels now (false).
    public var decodeUseLazyDecoding = false
    /// Keep a source of more than 8 bits a component (10-bit PQ or HLG AVIF and HEIC, JPEG XL,
    /// 16-bit PNG and TIFF) at 16 bits with its colour encoding (SDWebImage's `decodeToHDR`):
    /// `Image.bitsPerComponent` is 16, `withUnsafeRGBA16Samples` gives the samples, an HDR
    /// source says `isHighDynamicRange`, and encoders write it HDR (`encodeKeepsHDR`). The 8-bit
    /// pixels stay SDR, tone mapped. False: 8-bit SDR only. Animations and vector images stay 8-bit.
    public var decodeToHDR = false
    /// Decode a HEIC or AVIF file's embedded thumbnail in place of its primary image, when it
    /// has one: a smaller, faster decode (imgproxy's `enforce_thumbnail`). Other formats ignore it.
    public var decodeEmbeddedThumbnail = false
    /// Decode at most this many frames of an animation (GIF, WebP, APNG), its first ones: the
    /// others are dropped with their delays, the loop count stays, and the frame and pixel
    /// limits and the time budget count only the frames kept (imgproxy's `max_animation_frames`).
    /// 1 (or less) gives the first frame as a still image, as `decodeFirstFrameOnly` does. No
    /// limit by default.
    public var decodeFrameLimit = Int.max
    /// With `decodeToHDR`, the headroom (a ratio over SDR white) of the display a gain-map
    /// JPEG's HDR rendition is made for: its map applies from none (at the map's
    /// `capacityMinimumLog2`) to fully (at `capacityMaximumLog2`); nil: fully.
    public var decodeHDRDisplayHeadroom: Double?
    /// Decode every frame of an animation at once and keep them (`.preloadAllFrames`); set by
    /// the load path, not by coders.
    var decodePreloadsAllFrames = false
    /// Refuse images whose header claims more pixels than this (per frame), or whose pixels as
    /// the decoder holds them (16-bit, float, a progressive JPEG's coefficients) take more bytes
    /// than this many 8-bit RGBA pixels would, before allocating any.
    public var decodeMaxPixelCount = ImageCoderOptions.defaultMaxPixelCount
    /// Refuse progressive JPEGs with more scans than this (each scan is a pass over the whole
    /// image, and libjpeg-turbo 2.1 sets no limit), before decoding any.
    public var decodeMaxScanCount = ImageCoderOptions.defaultMaxScanCount
    /// Refuse animations with more frames than this (of those `decodeFrameLimit` keeps), before
    /// decoding any.
    public var decodeMaxFrameCount = ImageCoderOptions.defaultMaxFrameCount
    /// Refuse animations whose frames together hold more pixels than this (frames kept x
    /// canvas), before decoding any.
    public var decodeMaxTotalPixelCount = ImageCoderOptions.defaultMaxTotalPixelCount
    /// Refuse PNGs whose compressed metadata (iCCP profile, zTXt and iTXt text) inflates to more
    /// bytes than this in all, before decoding (libpng inflates each such chunk up to 8 MB).
    public var decodeMaxMetadataBytes = ImageCoderOptions.defaultMaxMetadataBytes
    /// The CPU time a decode may take to compute its pixels (a thumbnail, a full-size image, an
    /// animation's frames) before it is stopped, for the work no other limit counts.
    public var decodeTimeBudget = DecodeTimeBudget()

    /// Encode only the first frame of an animated image.
    public var encodeFirstFrameOnly = false
    /// Quality of lossy formats, 0...1 (1 best).
    public var encodeCompressionQuality: Double = 1
    /// Colour that replaces transparency in formats without alpha (JPEG); white when nil.
    public var encodeBackgroundColor: RGBA8?
    /// Scale the image down to fit this many pixels before encoding; zero = as is.
    public var encodeMaxPixelSize: CGSize = .zero
    /// Lower the quality of lossy formats until the output fits in this many bytes (the smallest
    /// achievable output if none fits); 0 = no limit.
    public var encodeMaxFileSize = 0
    /// Refuse to encode animations whose frames together hold more pixels than this (frames x
    /// frame size as encoded, each frame counted as at least `encodeFramePixelFloor`), before
    /// encoding any. It bounds the encoders' time (GIF's quantiser takes about 11 megapixels a
    /// second here) and, as an animation has at least two frames, their memory: libwebp's
    /// animation encoder and libvips' GIF saver hold about 40 bytes per pixel of the frame.
    public var encodeMaxTotalPixelCount = ImageCoderOptions.defaultEncodeMaxTotalPixelCount
    /// Embed an EXIF thumbnail. Not supported by the libvips coder: ignored.
    public var encodeEmbedThumbnail = false
    /// Write the metadata of the file the image was decoded from (EXIF, XMP, IPTC, ICC profile)
    /// into the output, as libvips' savers do with `strip=false` (JPEG, PNG, WebP, HEIF/AVIF
    /// and TIFF hold some or all of it), with EXIF orientation 1 (decoded pixels are
    /// upright) and the profile that describes the pixels (the file's when it is sRGB, else
    /// sRGB, every decode converting to sRGB). False by default: outputs carry none.
    public var encodeKeepsMetadata = false
    /// What `encodeKeepsMetadata` writes of the metadata: all of it by default.
    public var encodeKeptMetadata = KeptMetadata.all
    /// Write an image decoded with `decodeToHDR` with its high bit depth and colour encoding to
    /// formats that hold them: AVIF at 12 bits, HEIC at 10 or 12, with an nclx box (libheif), JPEG
    /// XL with its colour encoding (libjxl), PNG at 16 bits with a `cICP` chunk. JPEG, WebP, GIF
    /// and TIFF get the SDR (tone-mapped) pixels, as do encodes with `encodeMaxPixelSize`,
    /// `encodeMaxFileSize` or `encodeBackgroundColor`. False: SDR for every format.
    public var encodeKeepsHDR = true
    /// Write JPEG progressive and PNG interlaced (Adam7): a partial download shows the whole
    /// image, coarse first. Other formats ignore it.
    public var encodeInterlaced = false
    /// Write PNG and GIF with a palette of at most this many colours (2...256), quantised and
    /// dithered by libimagequant; rounded up to 2, 4, 16 or 256 (the palette bit depths 1, 2, 4
    /// and 8 libvips 8.14 writes). 0: PNG in full colour, GIF with 256 colours.
    public var encodePaletteColorCount = 0
    /// CPU effort spent on a smaller file, in the scale of the format written, clamped to it:
    /// WebP 0...6 (libvips' default 4), AVIF and HEIC 0...9 (4), JPEG XL 1...9 (7), a PNG or GIF
    /// palette's quantisation 1...10 (7). nil: the default. HDR encodes (`encodeKeepsHDR`) take
    /// it too (HEIC's x265 takes no effort, there as in libvips).
    public var encodeEffort: Int?
    /// libwebp's preset for lossy WebP: what the encoder's filtering is tuned for.
    public var encodeWebPPreset = WebPPreset.default

    /// 100 megapixels.
    public static let defaultMaxPixelCount = 100_000_000
    /// 100 scans: encoders write about 10 (jpegtran's and mozjpeg's scripts 6 to 12).
    public static let defaultMaxScanCount = 100
    /// 10,000 frames.
    public static let defaultMaxFrameCount = 10_000
    /// 1 gigapixel, ten full-size frames.
    public static let defaultMaxTotalPixelCount = 1_000_000_000
    /// 40 megapixels: about 3.6 s of GIF encoding here (the slowest), and frames of at most 20
    /// megapixels, 800 MB of encoder memory.
    public static let defaultEncodeMaxTotalPixelCount = 40_000_000
    /// What the smallest frame counts against `encodeMaxTotalPixelCount`: a frame costs an
    /// encoder a fixed amount of work however small (a libvips PNG encode per APNG frame).
    public static let encodeFramePixelFloor = 65_536
    /// 16 MiB: the largest ICC profiles in use are a few megabytes.
    public static let defaultMaxMetadataBytes = 16 << 20
    /// 60 MiB, SDWebImage's default for `scaleDownLargeImages`.
    public static let defaultScaleDownLimitBytes = 60 * 1024 * 1024

    /// Kinds of metadata an encoder keeps (`encodeKeptMetadata`).
    public struct KeptMetadata: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The whole EXIF block (orientation 1).
        public static let exif = KeptMetadata(rawValue: 1)
        /// The copyright alone (imgproxy's `keep_copyright`): the EXIF's Copyright and Artist
        /// tags, IPTC's By-line, Credit and Copyright Notice; `exif` and `iptc` keep them with the rest.
        public static let copyright = KeptMetadata(rawValue: 2)
        public static let xmp = KeptMetadata(rawValue: 4)
        public static let iptc = KeptMetadata(rawValue: 8)
        /// The ICC profile of the decoded pixels.
        public static let colorProfile = KeptMetadata(rawValue: 16)
        public static let all: KeptMetadata = [.exif, .xmp, .iptc, .colorProfile]
    }

    /// libwebp's presets, as libvips' `webpsave` names them.
    public enum WebPPreset: String, Sendable, CaseIterable {
        /// No tuning.
        case `default`
        /// Digital pictures, such as portraits and indoor shots.
        case picture
        /// Outdoor photographs, with natural lighting.
        case photo
        /// Drawings: high-contrast details.
        case drawing
        /// Small colourful images.
        case icon
        /// Text-like images.
        case text
    }

    /// SDWebImage's defaults: no thumbnail, no scale-down, quality 1, 100 megapixels at most;
    /// and limits on the work a small input can ask for (scans, frames, total pixels).
    public init() {}
}
