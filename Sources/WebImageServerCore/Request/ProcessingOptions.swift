import Foundation
import WebImage

/// What one image request asks for: imgproxy's processing options, parsed from a URL by
/// `ImgproxyURLParser` (presets and the configuration's defaults already applied). Two URLs
/// that ask for the same processing (`rs:fill:300:200`, `resize:fill:300:200`,
/// `rt:fill/w:300/h:200`) give equal values and equal `canonicalForm`s.
public struct ProcessingOptions: Sendable, Hashable {
    /// How `width` and `height` are met (imgproxy's `resizing_type`).
    public enum ResizingType: String, Sendable, Hashable, CaseIterable {
        /// Inside the box, aspect kept.
        case fit
        /// Covers the box, aspect kept, then cut to it by `gravity`.
        case fill
        /// As `fill`, but a source smaller than the box is cut to the box's aspect instead of enlarged.
        case fillDown = "fill-down"
        /// Stretched to the box.
        case force
        /// `fill` when the source and the box are both landscape or both portrait, else `fit`.
        case auto
    }

    /// A cut before resizing (imgproxy's `crop`).
    public struct Crop: Sendable, Hashable {
        /// Sides in pixels when at least 1, fractions of the source's when below; 0 keeps the side.
        public var width: Double
        public var height: Double
        /// Where the cut is made; nil uses `gravity`.
        public var gravity: ImageGravity?

        /// A cut of `width` x `height`, placed by `gravity`.
        public init(width: Double, height: Double, gravity: ImageGravity? = nil) {
            self.width = width
            self.height = height
            self.gravity = gravity
        }
    }

    /// Cutting away borders of one colour (imgproxy's `trim`).
    public struct Trim: Sendable, Hashable {
        /// How far from the border colour a pixel may be and still be border (0...255 a band).
        public var threshold: Double
        /// The border colour; nil for the top-left pixel's.
        public var color: RGBA8?
        /// Cut the same from left and right (the smaller cut), from top and bottom.
        public var equalHorizontal: Bool
        public var equalVertical: Bool

        /// imgproxy's defaults: threshold 10, the top-left pixel's colour, sides cut apart.
        public init(threshold: Double = 10, color: RGBA8? = nil, equalHorizontal: Bool = false, equalVertical: Bool = false) {
            self.threshold = threshold
            self.color = color
            self.equalHorizontal = equalHorizontal
            self.equalVertical = equalVertical
        }
    }

    /// Margins added after resizing, in pixels before `dpr` (imgproxy's `padding`).
    public struct Padding: Sendable, Hashable {
        public var top = 0, right = 0, bottom = 0, left = 0

        /// Margins in CSS's order.
        public init(top: Int = 0, right: Int = 0, bottom: Int = 0, left: Int = 0) {
            (self.top, self.right, self.bottom, self.left) = (top, right, bottom, left)
        }

        var isEmpty: Bool { top == 0 && right == 0 && bottom == 0 && left == 0 }
    }

    // MARK: Geometry

    /// How the box is met (`resizing_type`).
    public var resizingType = ResizingType.fit
    /// The box, in pixels before `dpr` and `zoom`; 0 derives the side from the other's scale.
    public var width = 0
    public var height = 0
    /// Sides the result keeps at least, whatever the box (`min-width`, `min-height`).
    public var minWidth = 0
    public var minHeight = 0
    /// Extra scale on each side (`zoom`).
    public var zoomWidth = 1.0
    public var zoomHeight = 1.0
    /// Device pixel ratio: the box, offsets and padding are multiplied by it.
    public var dpr = 1.0
    /// Allow results larger than the source (`enlarge`).
    public var enlarge = false
    /// Grow the canvas to the box when the image is smaller (`extend`), placed by `extendGravity`.
    public var extend = false
    public var extendGravity = ImageGravity.center
    /// Grow the canvas to the box's aspect ratio around the image (`extend_aspect_ratio`),
    /// placed by `extendAspectRatioGravity`; only when the box has both sides.
    public var extendAspectRatio = false
    public var extendAspectRatioGravity = ImageGravity.center
    /// Where `fill` and `crop` cut (`gravity`).
    public var gravity = ImageGravity.center
    /// The cut before resizing (`crop`); nil for none.
    public var crop: Crop?
    /// Borders to cut away first (`trim`); nil for none.
    public var trim: Trim?
    /// Margins after resizing (`padding`).
    public var padding = Padding()
    /// Turn the source upright by its EXIF orientation (`auto_rotate`).
    public var autoRotate: Bool
    /// Clockwise quarter turns in degrees, 0, 90, 180 or 270 (`rotate`).
    public var rotate = 0
    /// Mirror left-right, top-bottom (`flip`), after `rotate`.
    public var flipHorizontal = false
    public var flipVertical = false

    // MARK: Effects

    /// Flatten transparency onto this colour (`background`); nil leaves transparency to
    /// formats that keep it.
    public var background: RGBA8?
    /// Gaussian blur sigma (`blur`), unsharp mask sigma (`sharpen`), block size (`pixelate`): 0 for none.
    public var blur = 0.0
    public var sharpen = 0.0
    public var pixelate = 0
    /// Corner radius in pixels before `dpr` (`round_corners`, this server's own).
    public var roundCorners = 0.0
    /// The server's mark drawn over the result, last (`watermark`); opacity 0: none.
    public var watermark = Watermark()
    /// Gaussian sigma the faces found in the result are blurred by (`blur_detections`); 0: none.
    public var blurDetections = 0.0
    /// Outline the faces found in the result (`draw_detections`).
    public var drawDetections = false
    /// What finds the faces of `.faces` gravity, `blurDetections` and `drawDetections`: the
    /// configuration's (`FACE_DETECTION_CASCADES`).
    public var faceDetector: OpenCVFaceDetector

    // MARK: Output

    /// The output format (`format`, or the source URL's extension); nil lets the server choose.
    public var format: ImageFormat?
    /// Quality 1...100 for every lossy format (`quality`); 0 uses `formatQuality`, then `defaultQuality`.
    public var quality = 0
    /// Quality by format: the configuration's, overridden by `format_quality`.
    public var formatQuality: [ImageFormat: Int]
    /// The configuration's `QUALITY`.
    public var defaultQuality: Int
    /// Most bytes of the result (`max_bytes`); 0 for no limit.
    public var maxBytes = 0
    /// Remove metadata from the result (`strip_metadata`) but the copyright (`keepCopyright`);
    /// false keeps what the output format can hold. The ICC profile: `stripColorProfile`.
    public var stripMetadata: Bool
    /// Write no ICC profile (`strip_color_profile`); false keeps the profile of the pixels.
    public var stripColorProfile: Bool
    /// When stripping metadata, keep the copyright: the EXIF's Copyright and Artist, IPTC's
    /// By-line, Credit and Copyright Notice (`keep_copyright`).
    public var keepCopyright: Bool
    /// Process a HEIC or AVIF source's embedded thumbnail, when it has one (`enforce_thumbnail`).
    public var enforceThumbnail: Bool
    /// Keep an HDR source HDR in a format that holds it (`preserve_hdr`); see
    /// `ProcessingConfiguration.preserveHDR`.
    public var preserveHDR: Bool

    // MARK: Handling

    /// Changes the cache key and nothing else (`cachebuster`).
    public var cacheBuster: String?
    /// Unix time after which the URL is refused (`expires`).
    public var expires: Int64?

    /// Whether a URL that expires at unix time `time` (`expires`; 0: never) is refused at `now`:
    /// the one test, when the path is read and when a recent request's reading is reused.
    static func hasExpired(_ time: Int64, at now: Date) -> Bool {
        time > 0 && Double(time) < now.timeIntervalSince1970
    }
    /// The file name offered to the client, without extension (`filename`).
    public var filename: String?
    /// `Content-Disposition: attachment` (`return_attachment`).
    public var returnAttachment = false
    /// Send the source's bytes as they are, unprocessed (`raw`), once its header reads as an
    /// image; the whole source is fetched first.
    public var raw = false
    /// Source formats sent as they are when no other format is asked for: the configuration's,
    /// and those `skip_processing` adds.
    public var skipProcessingFormats: Set<ImageFormat> = []

    // MARK: Limits (the configuration's, or the URL's security options)

    /// Pixels, all frames counted; file bytes (0: none; the fetch enforces it); frames; pixels
    /// a frame (0: off); a result's largest side (0: off). See `ProcessingConfiguration`.
    public var maxSourceResolution: Int
    public var maxSourceFileSize: Int
    public var maxAnimationFrames: Int
    public var maxAnimationFrameResolution: Int
    public var maxResultDimension: Int

    /// imgproxy's defaults, with the default configuration's quality, metadata, orientation
    /// and limits.
    public init() {
        self.init(configuration: ProcessingConfiguration())
    }

    /// The defaults `configuration` sets: quality, format qualities, metadata, orientation, limits.
    public init(configuration: ProcessingConfiguration) {
        defaultQuality = configuration.quality
        formatQuality = configuration.formatQuality
        stripMetadata = configuration.stripMetadata
        stripColorProfile = configuration.stripColorProfile
        keepCopyright = configuration.keepCopyright
        enforceThumbnail = configuration.enforceThumbnail
        skipProcessingFormats = Set(configuration.skipProcessingFormats)
        autoRotate = configuration.autoRotate
        preserveHDR = configuration.preserveHDR
        maxSourceResolution = configuration.maxSourceResolution
        maxSourceFileSize = configuration.maxSourceFileSize
        maxAnimationFrames = configuration.maxAnimationFrames
        maxAnimationFrameResolution = configuration.maxAnimationFrameResolution
        maxResultDimension = configuration.maxResultDimension
        faceDetector = configuration.faceDetector
    }

    /// The quality (1...100) a result in `format` is encoded at.
    public func quality(for format: ImageFormat) -> Int {
        quality > 0 ? quality : formatQuality[format] ?? defaultQuality
    }
}
