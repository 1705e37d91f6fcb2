import Foundation
internal import ImageEngine

/// What a file's header says, read without decoding pixels.
struct VipsHeader: Sendable {
    /// Size of one frame as stored in the file.
    var storedWidth: Int
    var storedHeight: Int
    /// EXIF orientation 1...8.
    var orientation: Int
    var pageCount: Int
    var hasAlpha: Bool
    var loop: Int
    /// Per-frame delays in milliseconds, as stored (may be shorter than `pageCount`).
    var delays: [Int]
    /// The EXIF, XMP, IPTC and ICC profile.
    var metadata = ImageMetadata.none
    /// Bytes a decoded pixel takes as the loader makes it (16-bit and float samples take 2 and 4).
    var bytesPerPixel = 4
    /// The colour encoding the file declares beside what libvips reads (`SourceColour`).
    var colour: ColourEncoding?
    /// What the source says about its colour, for `Image.colorInfo`.
    var colorInfo = ImageColorInfo.sRGB
    /// A gain-map JPEG's map and its metadata.
    var gainMap: GainMapJPEG?

    /// The encoding the loader's samples must be converted from before they are 8-bit sRGB
    /// (PQ, HLG, wide primaries), nil when libvips' own conversion is right.
    var colourToConvert: ColourEncoding? { colour.flatMap { $0.needsConversion ? $0 : nil } }

    /// The embedded ICC profile, if any.
    var iccProfile: Data? { metadata.iccProfile }

    /// Size as shown upright: orientations 5 to 8 swap width and height.
    var width: Int { orientation >= 5 ? storedHeight : storedWidth }
    var height: Int { orientation >= 5 ? storedWidth : storedHeight }

    /// Refuses a frame over `decodeMaxPixelCount` pixels (or without pixels), or whose pixels as
    /// the loader makes them take more bytes than that many 8-bit RGBA pixels would
    /// (`DecodeLimits.maxPixelBytes`), before any is decoded.
    func checkPixelLimit(_ options: ImageCoderOptions, format: ImageFormat) throws(ImageCodingError) {
        let pixels = storedWidth.multipliedReportingOverflow(by: storedHeight)
        if pixels.overflow || pixels.partialValue > options.decodeMaxPixelCount || storedWidth <= 0 || storedHeight <= 0 {
            throw .tooManyPixels(width: width, height: height, limit: options.decodeMaxPixelCount)
        }
        try DecodeLimits.checkPixelBytes(
            width: storedWidth, height: storedHeight, bytesPerPixel: bytesPerPixel, format: format, options: options
        )
    }
}

/// The libvips loader for one format, and the pipelines it starts.
struct VipsLoader: Sendable {
    let format: ImageFormat
    let operation: String
    /// libvips' HEIF loader reads the file's embedded thumbnail in place of its primary image
    /// (the primary image when it has none): `decodeEmbeddedThumbnail`.
    let loadsEmbeddedThumbnail: Bool

    init?(format: ImageFormat, embeddedThumbnail: Bool = false) {
        let prefix: String
        switch format {
        case .jpeg: prefix = "jpegload"
        case .png: prefix = "pngload"
        case .gif: prefix = "gifload"
        case .webP: prefix = "webpload"
        case .heic, .heif, .avif: prefix = "heifload"
        case .tiff: prefix = "tiffload"
        case .bmp: prefix = "magickload"
        case .svg: prefix = "svgload"
        case .pdf: prefix = "pdfload"
        case .jxl: prefix = "jxlload"
        default: return nil
        }
        self.format = format
        self.operation = prefix + "_buffer"
        loadsEmbeddedThumbnail = embeddedThumbnail && prefix == "heifload"
    }

    /// The loader's options that choose what it reads, before the others.
    private var itemOptions: String { loadsEmbeddedThumbnail ? "thumbnail=true," : "" }

    /// GIF and WebP animations load frame by frame (`page`, `n`).
    var isAnimatable: Bool { format == .gif || format == .webP }

    /// Reads the header (no pixels) and refuses images over the pixel limit.
    func header(of data: Data, options: ImageCoderOptions) throws(ImageCodingError) -> VipsHeader {
        // libvips 8.14 (libnsgif) counts the frames a cut GIF still holds and decodes them
        // without a warning, even with fail_on=truncated: the blocks are walked here instead.
        if format == .gif {
            let blocks = GIFBlocks(data)
            if let problem = blocks.problem { throw .corruptData(format: .gif, reason: problem) }
            if let frame = blocks.overlongFrame {
                throw .overLimit(format: .gif, reason: "the LZW data of frame \(frame) is longer than its pixels could need")
            }
            try DecodeLimits.checkAnimation(
                frameCount: DecodeLimits.keptFrames(of: blocks.frameCount, options), width: blocks.screenWidth,
                height: blocks.screenHeight, format: .gif, options: options
            )
        }
        try DecodeLimits.check(data, format: format, options: options)
        // Poppler rebuilds a PDF whose end (cross-reference table, trailer) is cut off and draws
        // what it finds. Acrobat wants the end-of-file marker within the last 1024 bytes (PDF 1.7
        // reference, appendix H): so do we.
        if format == .pdf, data.suffix(1024).range(of: Data("%%EOF".utf8)) == nil {
            throw .corruptData(format: .pdf, reason: "truncated PDF: no %%EOF marker at its end")
        }
        if format == .svg, let refusal = SVGEntities.refusal(in: data) {
            throw .corruptData(format: .svg, reason: "refused: \(refusal)")
        }
        let image: VipsImageRef
        do {
            image = try VipsImageRef.load(operation, data: data, options: itemOptions + (isAnimatable ? "n=-1" : ""))
        } catch {
            throw .corruptData(format: format, reason: error.message)
        }
        // A thumbnail has its own colour, which `SourceColour` (reading the primary image's) does not know.
        let readsThumbnail = loadsEmbeddedThumbnail
            && (try? VipsImageRef.load(operation, data: data, options: "")).map { ($0.width, $0.height) != (image.width, image.height) } ?? false
        // An animation's frames past `decodeFrameLimit` are dropped, their delays with them.
        let pageCount = isAnimatable ? DecodeLimits.keptFrames(of: max(1, image.pageCount), options) : max(1, image.pageCount)
        var header = VipsHeader(
            storedWidth: image.width, storedHeight: image.pageHeight, orientation: image.orientation,
            pageCount: pageCount, hasAlpha: image.hasAlpha, loop: image.loop ?? 0,
            delays: Array(image.delays.prefix(pageCount)), metadata: ImageMetadata(header: image), bytesPerPixel: image.bytesPerPixel
        )
        header.colour = readsThumbnail ? nil : SourceColour.encoding(of: data, format: format)
        header.colorInfo = SourceColour.info(
            header.colour, bytesPerSample: image.bytesPerPixel / max(1, image.bands), hasICCProfile: image.hasICCProfile
        )
        header.colorInfo.isGrey = image.bands - (image.hasAlpha ? 1 : 0) == 1
        if format == .jpeg, let gainMap = GainMapJPEG(data) {
            header.gainMap = gainMap
            header.colorInfo.gainMap = gainMap.info
        }
        try header.checkPixelLimit(options, format: format)
        try DecodeLimits.checkAnimation(
            frameCount: header.pageCount, width: header.storedWidth, height: header.storedHeight, format: format, options: options
        )
        return header
    }

    /// Which frames of an animated file a pipeline loads.
    enum Frames: Sendable {
        /// The loader's default: a still image, or an animation's first frame.
        case still
        /// An animation's first frame alone.
        case first
    }

    /// The pipeline that decodes `data` (a still image, or `frames` of an animation) by `plan`,
    /// its pixels computed under a new `WorkBudget` of `budget` for each build.
    func recipe(
        for data: Data, header: VipsHeader, plan: DecodePlan, frames: Frames, budget: Duration, convertsColour: Bool = false
    ) -> ImageRecipe {
        if convertsColour, let colour = header.colourToConvert {
            return convertingRecipe(for: data, plan: plan, colour: colour, header: header, budget: budget)
        }
        if format == .jpeg, Self.isProgressiveJPEG(data) {
            // At the DCT scale libvips' thumbnail would load it.
            return readerRecipe(plan: plan, budget: budget) { box throws(VipsError) in
                let shrink = box.map { TurboJPEGCoder.libvipsJPEGShrink(header: header, width: $0.width, height: $0.height, stretch: $0.stretch) }
                return try VipsImageRef.loadProgressiveJPEG(data, shrink: shrink ?? 1)
            }
        }
        if Self.isStillWebP(data) {
            // Scaled by libwebp as libvips' thumbnail would load it.
            return readerRecipe(plan: plan, budget: budget) { box throws(VipsError) in
                let shrink = box.map { Self.libvipsCommonShrink(header: header, width: $0.width, height: $0.height, stretch: $0.stretch) }
                return try VipsImageRef.loadStillWebP(data, scale: shrink.map { 1 / $0 })
            }
        }
        let call = loadCall(plan: plan, frames: frames)
        let source = ImageRecipe { () throws(VipsError) in
            try VipsImageRef.load(call.operation, data: data, options: call.options, loaderOptions: call.loaderOptions)
                .budgeted(by: WorkBudget(limit: budget))
        }
        if case .full(let orientation) = plan.mode, orientation > 1 {
            return source.appending { image throws(VipsError) in try image.autorotated() }
        }
        return source
    }

    /// libvips 8.14's `vips_thumbnail_calculate_common_shrink` for a thumbnail of `width` x
    /// `height`: the box in stored orientation, the shrink to fit it (each side on its own when
    /// stretched, never below 1), the smaller of the two.
    static func libvipsCommonShrink(header: VipsHeader, width: Int, height: Int, stretch: Bool) -> Double {
        let swapped = header.orientation >= 5
        var horizontal = Double(header.storedWidth) / Double(swapped ? height : width)
        var vertical = Double(header.storedHeight) / Double(swapped ? width : height)
        if !stretch {
            let fit = max(horizontal, vertical)
            (horizontal, vertical) = (fit, fit)
        }
        return min(max(1, horizontal), max(1, vertical))
    }

    /// True for a still WebP (no animation frames): read by our reader
    /// (`VipsImageRef.loadStillWebP`), in the thread a budget counts, where libvips' loader
    /// decodes in its workers.
    static func isStillWebP(_ data: Data) -> Bool {
        ImageFormat(sniffing: data) == .webP && WebPFrames.codedPixelCount(in: data) == 0
    }

    /// True for a JPEG libjpeg reads whole before its first row (progressive): read by our
    /// reader (`VipsImageRef.loadProgressiveJPEG`), which the budget stops between rows of
    /// blocks, where jpegload reads every scan in one call.
    static func isProgressiveJPEG(_ data: Data) -> Bool {
        DecodeCost.progressiveJPEGScans(in: data, countingUpTo: 1) > 0
    }

    /// A JPEG loaded at DCT scale 1/`shrink`, sequential (rows read top to bottom, once), its
    /// pixels computed under `budget`: a progressive one by our reader, which the budget stops
    /// between rows of blocks, another by jpegload.
    static func budgetedJPEG(_ data: Data, shrink: Int, budget: WorkBudget) throws(VipsError) -> VipsImageRef {
        let image = isProgressiveJPEG(data)
            ? try VipsImageRef.loadProgressiveJPEG(data, shrink: shrink)
            : try VipsImageRef.load("jpegload_buffer", data: data, options: "fail_on=truncated,access=sequential,shrink=\(shrink)")
        return try image.budgeted(by: budget)
    }

    /// A thumbnail's box: at most `width` x `height`, or exactly that when `stretch`.
    typealias ThumbnailBox = (width: Int, height: Int, stretch: Bool)

    /// The pipeline of a file our own reader loads (a progressive JPEG, a still WebP) where
    /// libvips' loader would read it in a call, or in threads, a budget cannot stop or see:
    /// `load` (at full size, or shrunk on load as libvips' thumbnail would for `box`) under a new
    /// `WorkBudget` of `budget`, then libvips' thumbnail of that, as `thumbnail_buffer` makes it.
    /// Turned upright from the whole image held in memory (one tile, computed by the thread that
    /// first asks, under the budget): the readers are sequential.
    private func readerRecipe(
        plan: DecodePlan, budget: Duration, load: @escaping @Sendable (_ box: ThumbnailBox?) throws(VipsError) -> VipsImageRef
    ) -> ImageRecipe {
        switch plan.mode {
        case .full(let orientation):
            let source = ImageRecipe { () throws(VipsError) in try load(nil).budgeted(by: WorkBudget(limit: budget)) }
            guard orientation > 1 else { return source }
            return source.appending { image throws(VipsError) in try image.heldWhole().autorotated() }
        case let .thumbnail(width, height, stretch):
            return ImageRecipe { () throws(VipsError) in
                try load((width, height, stretch)).budgeted(by: WorkBudget(limit: budget))
                    .thumbnail(width: width, height: height, sizing: stretch ? .force : .down)
            }
        }
    }

    /// The pipeline for a source whose samples libvips would misread (PQ, HLG, wide primaries):
    /// the whole image loaded, converted to 8-bit sRGB by our tone mapper, then shrunk for a
    /// thumbnail. libvips' thumbnail_buffer cannot be used: it casts 16-bit samples to 8 bits,
    /// as sRGB, before anything could convert them (HEIF and JPEG XL have no shrink-on-load in
    /// libvips 8.14 that it would save). A thumbnail is first box-shrunk in 16 bits by the
    /// whole factor that leaves libvips' thumbnail at least 3x to reduce, so that the tone
    /// mapper sees a quarter of the pixels or fewer (leaving 2x, averaging PQ codes before tone
    /// mapping put bright edges of TestHDR.avif up to CIEDE2000 7 off the reference), then made
    /// the size libvips' thumbnail of the file would have.
    private func convertingRecipe(
        for data: Data, plan: DecodePlan, colour: ColourEncoding, header: VipsHeader, budget: Duration
    ) -> ImageRecipe {
        let signalMax = SourceColour.signalMax(format: format, bits: colour.bitsPerComponent)
        // Sequential access streams the file once, top to bottom; rotation needs random
        // access. (A 300x200 thumbnail of TestHDR.avif took 5x the CPU time from libvips' HEIF
        // loader in random access: its work is redone for the strips the thumbnail asks for.)
        let sequential = header.orientation <= 1
        var shrink = 1
        var target: (width: Int, height: Int)?
        switch plan.mode {
        case .full:
            break
        case let .thumbnail(width, height, stretch):
            let size = (try? BitmapThumbnail.libvipsSize(header: header, shrink: 1, width: width, height: height, stretch: stretch))
                ?? (width: width, height: height)
            target = size
            shrink = max(1, min(header.width / max(1, size.width), header.height / max(1, size.height)) / 3)
        }
        let options = itemOptions + "fail_on=truncated" + (sequential ? ",access=sequential" : "")
        let source = ImageRecipe { [operation, shrink] () throws(VipsError) in
            var image = try VipsImageRef.load(operation, data: data, options: options).budgeted(by: WorkBudget(limit: budget))
            if shrink > 1 { image = try image.shrunk(horizontal: shrink, vertical: shrink) }
            return try image.toneMappedToSRGB(colour, signalMax: signalMax)
        }
        switch plan.mode {
        case .full(let orientation) where orientation > 1:
            return source.appending { image throws(VipsError) in try image.autorotated() }
        case .full:
            return source
        case let .thumbnail(width, height, stretch):
            // Unshrunk, libvips' thumbnail of the box is the file's; shrunk, the size is forced.
            let size = shrink > 1 ? target ?? (width: width, height: height) : (width: width, height: height)
            let sizing: VipsImageRef.ThumbnailSizing = stretch || shrink > 1 ? .force : .down
            return source.appending { image throws(VipsError) in
                try image.thumbnail(width: size.width, height: size.height, sizing: sizing)
            }
        }
    }

    /// With `decodeToHDR`, the pipeline of the source's own samples at more than 8 bits, the
    /// size (`width` x `height`) and orientation of the 8-bit rendition: the loader, turned
    /// upright, resized (libvips' Lanczos-3 in 16 bits; libvips' thumbnail would cast to 8).
    func highBitDepthSource(for data: Data, header: VipsHeader, width: Int, height: Int, budget: Duration) -> HighBitDepthSource {
        let orientation = header.orientation
        let (uprightWidth, uprightHeight) = (header.width, header.height)
        return HighBitDepthSource(
            build: { [operation, itemOptions] () throws(VipsError) in
                // Random access: transformers read these samples out of order (a crop below the
                // top, a flip, a rotation), which a sequential PNG or TIFF load refuses.
                var image = try VipsImageRef.load(operation, data: data, options: itemOptions + "fail_on=truncated")
                    .budgeted(by: WorkBudget(limit: budget))
                if orientation > 1 { image = try image.autorotated() }
                if width != uprightWidth || height != uprightHeight {
                    image = try image.resized(
                        horizontalScale: Double(width) / Double(uprightWidth), verticalScale: Double(height) / Double(uprightHeight)
                    )
                }
                return image
            },
            signalMax: SourceColour.signalMax(format: format, bits: header.colorInfo.bitsPerComponent),
            encoding: header.colour.flatMap { $0.declaresCICP ? $0 : nil }
        )
    }

    /// The libvips call that loads `data` by `plan`: the loader, or `thumbnail_buffer`
    /// running it (shrink-on-load), with their options.
    func loadCall(plan: DecodePlan, frames: Frames) -> LoadCall {
        var loaderOptions = [itemOptions + "fail_on=truncated"]
        switch frames {
        case .still: break
        case .first: loaderOptions.append("page=0,n=1")
        }
        switch plan.mode {
        case .full(let orientation):
            // Sequential access streams the file once, top to bottom; rotation needs random access.
            if orientation <= 1 && frames == .still { loaderOptions.append("access=sequential") }
            return LoadCall(operation: operation, options: loaderOptions.joined(separator: ","), loaderOptions: nil)
        case let .thumbnail(width, height, stretch):
            return LoadCall(
                operation: "thumbnail_buffer", options: "width=\(width),height=\(height),size=\(stretch ? "force" : "down")",
                loaderOptions: loaderOptions.joined(separator: ",")
            )
        }
    }

    /// The first `frames` frames of an animation, top to bottom, each `pageHeight` rows, at full
    /// size: one load, in which the loader composes each frame on the canvas of the one before, its
    /// pixels computed under `budget`. Sequential: read top to bottom as the rows are asked
    /// for, in the reader's thread (a random-access load of over 100 MB, the strip of 25 frames
    /// of 1 MP, is decoded whole by libvips' workers into a temporary file first, where no
    /// budget sees it).
    func frames(_ frames: Int, of data: Data, budget: WorkBudget) throws(VipsError) -> VipsImageRef {
        try VipsImageRef.load(operation, data: data, options: "fail_on=truncated,n=\(frames),access=sequential").budgeted(by: budget)
    }
}

/// A libvips load: the operation (a loader, or `thumbnail_buffer`) and its options in libvips'
/// string form, and the options `thumbnail_buffer` passes on to the loader it runs.
struct LoadCall: Sendable {
    let operation: String
    let options: String
    let loaderOptions: String?
}

/// How big to decode: at full size, or shrunk on load to a thumbnail.
struct DecodePlan: Sendable {
    enum Mode: Sendable {
        /// Full size; `orientation` is the EXIF orientation to apply.
        case full(orientation: Int)
        /// At most `width` x `height`, keeping the aspect ratio, or exactly that size if `stretch`.
        case thumbnail(width: Int, height: Int, stretch: Bool)
    }

    let mode: Mode

    /// The most pixels the decode gives: the image's at full size, the box's for a thumbnail.
    func maxPixelCount(header: VipsHeader) -> Int {
        switch mode {
        case .full: header.width * header.height
        case let .thumbnail(width, height, _): width * height
        }
    }

    init(header: VipsHeader, options: ImageCoderOptions) {
        let width = header.width
        let height = header.height
        let (askedWidth, askedHeight) = options.decodeThumbnailPixelSize.pixelBox(rounding: .toNearestOrAwayFromZero)
        if askedWidth > 0 || askedHeight > 0 {
            // A side left at zero is unconstrained; never upscale.
            let boxWidth = askedWidth > 0 ? askedWidth : Int.max / 2
            let boxHeight = askedHeight > 0 ? askedHeight : Int.max / 2
            if width > boxWidth || height > boxHeight {
                if options.decodePreserveAspectRatio || askedWidth == 0 || askedHeight == 0 {
                    mode = .thumbnail(width: min(boxWidth, width), height: min(boxHeight, height), stretch: false)
                } else {
                    mode = .thumbnail(width: min(boxWidth, width), height: min(boxHeight, height), stretch: true)
                }
                return
            }
        }
        if let size = ImageCoderHelper.scaledDownPixelSize(
            width: width, height: height, limitBytes: options.decodeScaleDownLimitBytes
        ) {
            mode = .thumbnail(width: size.width, height: size.height, stretch: false)
            return
        }
        mode = .full(orientation: header.orientation)
    }
}
