import Foundation
internal import ImageEngine

/// What imgproxy Pro's /info tells of an image, read from its bytes: format and MIME type,
/// upright size and EXIF orientation, colour space, bands, sample format, pages, alpha, EXIF,
/// IPTC and XMP, digests of the bytes, and on request the pixel analyses of a small copy
/// (`ImageAnalysis`) and the faces in the page (`detect_objects`). Its JSON (`jsonData()`)
/// is /info's, with the fields `options` chose.
///
/// The header facts are read without decoding a pixel, under the decode limits of the coder
/// options given (a decompression bomb is refused by its header, with the error a decode would
/// give); the transparency check and the analyses decode one copy at most 100 pixels a side,
/// face detection one at most 640 (`OpenCVFaceDetector.maxPixelSide`).
/// Reading blocks: read it off the cooperative pool (`BlockingPool.run`), as any decode.
public struct ImageInfo: Sendable, Equatable {
    /// The options it was read with: what its JSON carries.
    public var options: InfoOptions
    /// `size`: the source's size in bytes.
    public var byteCount: Int
    /// `format`: the format, from the file's bytes.
    public var format: ImageFormat
    /// Width in pixels as shown upright (EXIF orientation applied).
    public var pixelWidth: Int
    /// Height in pixels as shown upright.
    public var pixelHeight: Int
    /// EXIF orientation 1...8 (1 when absent).
    public var orientation: Int
    /// The EXIF tags, in the file's order (the embedded thumbnail's left out).
    public var exifTags: [ExifEntry]
    /// The IPTC block as libvips reads it (a JPEG's Photoshop APP13 payload, or IPTC-IIM datasets).
    public var iptc: Data?
    /// The XMP packet, as the file holds it.
    public var xmp: String?
    /// libvips' interpretation of the bands: "srgb", "b-w", "cmyk", "rgb16", "grey16"...
    public var colorspace: String
    /// Bands, alpha included.
    public var bands: Int
    /// libvips' band format: "uchar", "ushort", "float"...
    public var sampleFormat: String
    /// Pages, or an animation's frames (1 for a still image).
    public var pagesNumber: Int
    /// Whether the image has an alpha channel (or a transparent colour).
    public var hasAlpha: Bool
    /// Whether any pixel is not opaque, when `options.checksTransparency` asked: nil otherwise.
    /// Read on the 100-pixel copy the analyses use, so a lone translucent pixel of a large
    /// image may be averaged away; an image without alpha is opaque without a decode.
    public var isTransparent: Bool?
    /// The digests `options.hashsums` asked for, lowercase hex.
    public var hashsums: [Hashsum: String]
    /// The pixel analyses the options asked for.
    public var analyses: InfoAnalyses
    /// The faces found, boxes in the upright pixels (`pixelWidth` x `pixelHeight`), when
    /// `options.detectObjects` asked: nil otherwise.
    public var objects: [DetectedFace]?

    /// The MIME type of `format`.
    public var mimeType: String { format.mimeType }

    /// Reads the info of `data` that `options` asks for, under `coderOptions`' decode limits;
    /// objects (`detectObjects`) are the faces `faceDetector` finds.
    public init(
        data: Data, options: InfoOptions = InfoOptions(), coderOptions: ImageCoderOptions = ImageCoderOptions(),
        faceDetector: OpenCVFaceDetector = .shared
    ) throws(ImageInfoError) {
        let header: ImageHeader
        let fields: HeaderFields
        do {
            header = try ImageHeader(probing: data, options: coderOptions)
        } catch {
            throw .header(error)
        }
        guard options.page < header.frameCount else {
            throw .invalidOption("page \(options.page): the image has \(header.frameCount) page\(header.frameCount == 1 ? "" : "s")")
        }
        do {
            fields = try HeaderFields(data: data, format: header.format, page: options.page, limits: coderOptions)
        } catch {
            throw .header(error)
        }
        self.options = options
        byteCount = data.count
        format = header.format
        // Another page has its own size (a TIFF's or a PDF's pages; an animation's frames share one).
        let upright = options.page == 0 ? (header.pixelWidth, header.pixelHeight) : fields.uprightSize
        (pixelWidth, pixelHeight) = upright
        orientation = header.orientation
        pagesNumber = header.frameCount
        hasAlpha = header.hasAlpha
        exifTags = fields.metadata.exif.map { ExifTags.read($0).map(ExifEntry.init) } ?? []
        iptc = fields.metadata.iptc
        xmp = fields.metadata.xmp.map { String(decoding: Self.trimmingNulls($0), as: UTF8.self) }
        colorspace = fields.colorspace
        bands = fields.bands
        sampleFormat = fields.sampleFormat
        hashsums = Dictionary(uniqueKeysWithValues: options.hashsums.map { ($0, $0.hex(of: data)) })
        analyses = InfoAnalyses()
        if options.detectObjects {
            do {
                objects = options.page == 0
                    ? try faceDetector.faces(in: data, options: coderOptions) : try faceDetector.faces(inPage: fields.page, format: header.format)
            } catch {
                throw .objects(error)
            }
        }
        let checksPixels = options.checksTransparency && header.hasAlpha
        guard options.needsAnalysis || checksPixels else {
            isTransparent = options.checksTransparency ? false : nil
            return
        }
        let analysis: ImageAnalysis
        do {
            analysis = options.page == 0
                ? try ImageAnalysis(data: data, options: coderOptions) : try ImageAnalysis(page: fields.page, format: header.format)
        } catch {
            throw .analysis(error)
        }
        if options.checksTransparency { isTransparent = header.hasAlpha && analysis.hasTranslucentPixel }
        do {
            analyses = try InfoAnalyses(analysis, options: options)
        } catch {
            throw .analysis(error)
        }
    }

    /// libvips' XMP field may end in the NUL a writer left.
    private static func trimmingNulls(_ data: Data) -> Data {
        var data = data
        while data.last == 0 { data.removeLast() }
        return data
    }
}

/// What the header's libvips image says beyond `ImageHeader`: interpretation, bands, band
/// format and the metadata blocks, read from a header load (no pixel decoded) after
/// `ImageHeader` checked the limits; of page `page` (its size checked against the pixel limit).
private struct HeaderFields {
    let colorspace: String
    let bands: Int
    let sampleFormat: String
    let metadata: ImageMetadata
    /// The page's libvips image, lazy: its pixels are decoded only when asked for.
    let page: VipsImageRef
    /// The page's size, upright.
    let uprightSize: (width: Int, height: Int)

    init(data: Data, format: ImageFormat, page index: Int, limits: ImageCoderOptions) throws(ImageCodingError) {
        guard let loader = VipsLoader(format: format) else { throw .unsupportedFormat(format) }
        let image: VipsImageRef
        do {
            image = try VipsImageRef.load(loader.operation, data: data, options: index == 0 ? "" : "page=\(index)")
        } catch {
            throw .corruptData(format: format, reason: index == 0 ? error.message : "page \(index): \(error.message)")
        }
        let pixels = image.width.multipliedReportingOverflow(by: image.height)
        guard !pixels.overflow, pixels.partialValue <= limits.decodeMaxPixelCount else {
            throw .overLimit(format: format, reason: "page \(index) is \(image.width)x\(image.height), over decodeMaxPixelCount")
        }
        colorspace = image.interpretationName
        bands = image.bands
        sampleFormat = image.sampleFormatName
        metadata = ImageMetadata(header: image)
        self.page = image
        uprightSize = image.orientation >= 5 ? (image.height, image.width) : (image.width, image.height)
    }
}
