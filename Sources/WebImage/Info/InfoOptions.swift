/// What an `ImageInfo` holds and its JSON carries, as imgproxy Pro's /info options choose it,
/// with its defaults: size, format, dimensions, EXIF, IPTC and XMP on; the rest asked for.
public struct InfoOptions: Sendable, Equatable {
    /// `size`: the source's size in bytes.
    public var size = true
    /// `format`: the format and MIME type.
    public var format = true
    /// `dimensions`: the upright width and height and the EXIF orientation.
    public var dimensions = true
    /// `exif`: the EXIF tags, under their titles ("Date and Time (Original)"), or with
    /// `exifCanonicalNames` their names ("DateTimeOriginal").
    public var exif = true
    /// `exif`'s second argument: canonical names.
    public var exifCanonicalNames = false
    /// `iptc`: the IPTC-IIM datasets.
    public var iptc = true
    /// `xmp`: the XMP packet.
    public var xmp = true
    /// `colorspace`: libvips' interpretation ("srgb", "cmyk", "b-w").
    public var colorspace = false
    /// `bands`: the number of bands, alpha included.
    public var bands = false
    /// `sample_format`: libvips' band format ("uchar", "ushort").
    public var sampleFormat = false
    /// `pages_number`: pages, or an animation's frames.
    public var pagesNumber = false
    /// `alpha`: whether the image has an alpha channel; with `checksTransparency`, whether
    /// any pixel is not opaque too.
    public var alpha = false
    /// `alpha`'s second argument: check the pixels for transparency.
    public var checksTransparency = false
    /// `palette`: at most this many colours (2...256), 0 for none.
    public var paletteColors = 0
    /// `average`: the average colour, fully transparent pixels ignored unless
    /// `averageIgnoresTransparent` is false.
    public var average = false
    /// `average`'s second argument: weigh colours by alpha (fully transparent ones not at all).
    public var averageIgnoresTransparent = true
    /// `dominant_colors`: the six swatches, the missing ones built from the found with
    /// `dominantColorsBuildMissing`.
    public var dominantColors = false
    /// `dominant_colors`' second argument: build the swatches not found.
    public var dominantColorsBuildMissing = false
    /// `blurhash`: horizontal BlurHash components (1...9 each way); 0 for none.
    public var blurHashXComponents = 0
    /// `blurhash`'s second argument: vertical components.
    public var blurHashYComponents = 0
    /// `thumb_hash`: the ThumbHash.
    public var thumbHash = false
    /// `perceptual_hash`: the 64-bit perceptual hash.
    public var perceptualHash = false
    /// `page`: the page, or an animation's frame, from 0, that the size, the colour facts,
    /// the analyses and the objects describe (the first by default).
    public var page = 0
    /// `calc_hashsums`: digests of the source's bytes.
    public var hashsums: [Hashsum] = []
    /// `detect_objects` (imgproxy Pro's): the faces a detector finds, the one class of objects
    /// here; in the page `page` names.
    public var detectObjects = false

    /// imgproxy's defaults.
    public init() {}

    /// imgproxy's option string: options divided by `/`, each `name:argument:...`, by the full
    /// names or their aliases (`bh:4:3/th:1/avg:1`), over the defaults. Booleans are Go's
    /// (`1`, `t`, `true`, `0`, `f`, `false`); what imgproxy reads as false, this refuses, as
    /// the server's processing options do. Pro's video, object-detection and cropping options
    /// are refused by name; `detect_objects` finds faces.
    public init(parsing text: String, separator: Character = ":") throws(ImageInfoError) {
        self.init()
        for segment in text.split(separator: "/") where !segment.isEmpty {
            let parts = segment.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
            try apply(name: parts[0], arguments: Array(parts.dropFirst()))
        }
    }

    /// Whether anything needs the pixels of a small copy decoded.
    var needsAnalysis: Bool {
        paletteColors > 0 || average || dominantColors || blurHashXComponents > 0 || thumbHash || perceptualHash
    }

    private mutating func apply(name: String, arguments: [String]) throws(ImageInfoError) {
        let option = OptionArguments(name: name, arguments: arguments)
        switch name {
        case "size", "s": size = try option.bool(at: 0)
        case "format", "f": format = try option.bool(at: 0)
        case "dimensions", "d": dimensions = try option.bool(at: 0)
        case "exif":
            exif = try option.bool(at: 0)
            exifCanonicalNames = try option.bool(at: 1, default: false)
        case "iptc": iptc = try option.bool(at: 0)
        case "xmp": xmp = try option.bool(at: 0)
        case "colorspace", "cs": colorspace = try option.bool(at: 0)
        case "bands", "b": bands = try option.bool(at: 0)
        case "sample_format", "sf": sampleFormat = try option.bool(at: 0)
        case "pages_number", "pn": pagesNumber = try option.bool(at: 0)
        case "alpha", "a":
            alpha = try option.bool(at: 0)
            checksTransparency = try option.bool(at: 1, default: false)
        case "palette", "p":
            paletteColors = try option.int(at: 0)
            guard paletteColors == 0 || (2...256).contains(paletteColors) else { throw option.fail("colors must be 0 or 2...256") }
        case "average", "avg":
            average = try option.bool(at: 0)
            averageIgnoresTransparent = try option.bool(at: 1, default: true)
        case "dominant_colors", "dc":
            dominantColors = try option.bool(at: 0)
            dominantColorsBuildMissing = try option.bool(at: 1, default: false)
        case "blurhash", "bh":
            blurHashXComponents = try option.int(at: 0)
            blurHashYComponents = try option.int(at: 1)
            let components = [blurHashXComponents, blurHashYComponents]
            guard components.allSatisfy({ (0...9).contains($0) }), components.allSatisfy({ $0 == 0 }) || !components.contains(0) else {
                throw option.fail("components must be 1...9 each (0:0 for none)")
            }
        case "thumb_hash", "th": thumbHash = try option.bool(at: 0)
        case "perceptual_hash", "phash", "ph": perceptualHash = try option.bool(at: 0)
        case "calc_hashsums", "chs":
            var kinds: [Hashsum] = []
            for argument in arguments where !argument.isEmpty {
                guard let kind = Hashsum(rawValue: argument) else { throw option.fail("\(argument) is not md5, sha1, sha256 or sha512") }
                if !kinds.contains(kind) { kinds.append(kind) }
            }
            hashsums = kinds
        case "detect_objects", "do": detectObjects = try option.bool(at: 0)
        case "video_meta", "vm", "classify", "cl", "crop", "c", "objects_position", "obj_pos", "op",
             "video_thumbnail_second", "vts", "video_thumbnail_keyframes", "vtk":
            throw .invalidOption("\(name) is not supported")
        case "page", "pg":
            page = try option.int(at: 0)
            guard page >= 0 else { throw option.fail("pages are numbered from 0") }
        default:
            throw .invalidOption("unknown option \(name)")
        }
    }

    /// One option's arguments, read as imgproxy reads them.
    private struct OptionArguments {
        let name: String
        let arguments: [String]

        func fail(_ reason: String) -> ImageInfoError { .invalidOption("\(name): \(reason)") }

        func bool(at index: Int, default fallback: Bool? = nil) throws(ImageInfoError) -> Bool {
            guard index < arguments.count, !arguments[index].isEmpty else {
                guard let fallback else { throw fail("an argument is missing") }
                return fallback
            }
            switch arguments[index] {
            case "1", "t", "T", "true", "TRUE", "True": return true
            case "0", "f", "F", "false", "FALSE", "False": return false
            default: throw fail("\(arguments[index]) is not a boolean (1, 0, true, false)")
            }
        }

        func int(at index: Int) throws(ImageInfoError) -> Int {
            guard index < arguments.count else { throw fail("an argument is missing") }
            guard let value = Int(arguments[index]) else { throw fail("\(arguments[index]) is not an integer") }
            return value
        }
    }
}
