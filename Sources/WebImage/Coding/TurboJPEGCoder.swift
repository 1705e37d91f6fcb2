import Foundation
internal import ImageEngine

/// JPEG through libjpeg-turbo's TurboJPEG API: decode at the smallest DCT scale that covers
/// the asked size, resize, colour-convert and turn the bitmap upright without libvips (whose
/// fixed cost per pipeline outweighs the work on small images), encode straight from pixels.
/// Taken when the decoded bitmap is at most 4 megapixels (full decodes up to 4 MP, thumbnails
/// of larger photos too), for full decodes at any size that are not lazy and have no colour
/// profile to convert from, and for encodes of images at any size that hold their pixels.
/// Other larger bitmaps, CMYK files, files TurboJPEG cannot read, and encodes that need more
/// than plain pixels (alpha to flatten, a size or byte budget, metadata to keep) go to
/// `VipsImageCoder`, which gives the same sizes and nearly the same pixels.
public final class TurboJPEGCoder: ThrowingImageCoder {
    /// The coder the shared `ImageCodersManager` uses.
    public static let shared = TurboJPEGCoder()

    private let fallback: VipsImageCoder

    /// A coder that hands what it does not take to `fallback`.
    public init(fallback: VipsImageCoder = .shared) {
        self.fallback = fallback
    }

    public func canDecode(from data: Data) -> Bool {
        ImageFormat(sniffing: data) == .jpeg
    }

    public func canEncode(to format: ImageFormat) -> Bool {
        format == .jpeg
    }

    public func decode(_ data: Data, options: ImageCoderOptions) throws(ImageCodingError) -> Image {
        // A gain-map JPEG's HDR rendition is made by libvips' pipeline.
        guard let loader = VipsLoader(format: ImageFormat(sniffing: data)), loader.format == .jpeg,
              let stored = TurboJPEG.header(of: data), !stored.isCMYK, !(options.decodeToHDR && GainMapJPEG(data) != nil)
        else { return try fallback.decode(data, options: options) }
        try DecodeLimits.check(data, format: .jpeg, options: options)
        // Orientation and colour profile from the header segments (libvips reads them when
        // they cannot be walked); the pixel limit either way.
        let header: VipsHeader
        if let metadata = JPEGMetadata(data) {
            header = VipsHeader(
                storedWidth: stored.width, storedHeight: stored.height, orientation: metadata.orientation, pageCount: 1,
                hasAlpha: false, loop: 0, delays: [], metadata: metadata.imageMetadata
            )
            try header.checkPixelLimit(options, format: .jpeg)
        } else {
            header = try loader.header(of: data, options: options)
        }
        let profile = VipsImageRef.isSRGBProfile(header.iccProfile) ? nil : header.iccProfile
        // A grey or broken profile: libvips knows what to do with it.
        if let profile, !ColourConversion.supports(profile, bands: 4) { return try fallback.decode(data, options: options) }
        let plan = DecodePlan(header: header, options: options)
        let work: Work?
        do {
            work = try Self.work(
                for: data, stored: stored, header: header, profile: profile, plan: plan, heldWhole: !options.decodeUseLazyDecoding
            )
        } catch {
            throw .corruptData(format: .jpeg, reason: error.message)
        }
        guard let work else { return try fallback.decode(data, options: options) }
        let limit = options.decodeTimeBudget.limit(for: plan)
        let recipe = ImageRecipe { () throws(VipsError) in
            try Self.image(of: work, budget: WorkBudget(limit: limit), data: data, options: options)
        }
        var pixels: PixelBuffer?
        if !options.decodeUseLazyDecoding {
            let budget = WorkBudget(limit: limit)
            do {
                pixels = try budget.stopping(work.bitmap)
            } catch {
                if error.isOverTimeBudget { throw ImageCodingError(decoding: .jpeg, error) }
                try DecodeLimits.checkSecondJPEGDecode(data, options: options)
                do {
                    pixels = try budget.stopping { () throws(VipsError) in try work.libvips(budget).normalizedToSRGB().renderRGBA() }
                } catch {
                    throw ImageCodingError(decoding: .jpeg, error)
                }
            }
        }
        var colour = ImageColorInfo.sRGB
        colour.isGrey = stored.isGrey
        return Image(
            recipe: pixels.map(ImageRecipe.bitmap) ?? recipe, pixels: pixels,
            pixelWidth: work.size.width, pixelHeight: work.size.height, scale: options.decodeScaleFactor,
            format: .jpeg, hasAlpha: false, sourceByteCount: data.count, metadata: header.metadata, colorInfo: colour
        )
    }

    /// `work` decoded within `budget`: TurboJPEG's bitmap, or for a file TurboJPEG stops at (any
    /// libjpeg warning), libvips' reading of it (which fails on truncation and tolerates stray
    /// bytes: the same size either way), lazy. Both decodes count against the scan limit and
    /// the budget; a decode the budget stopped is not read again. (The decode without lazy
    /// decoding, in `decode`, does the same.)
    private static func image(of work: Work, budget: WorkBudget, data: Data, options: ImageCoderOptions) throws(VipsError) -> VipsImageRef {
        do {
            return try VipsImageRef.wrapping(budget.stopping(work.bitmap))
        } catch {
            if error.isOverTimeBudget { throw error }
        }
        do throws(ImageCodingError) {
            try DecodeLimits.checkSecondJPEGDecode(data, options: options)
        } catch {
            throw VipsError(error.description)
        }
        return try work.libvips(budget)
    }

    /// A decode this coder takes: the upright size, the bitmap TurboJPEG makes, and libvips'
    /// reading for files TurboJPEG stops at, its pixels under the budget given.
    private struct Work {
        let size: (width: Int, height: Int)
        let bitmap: @Sendable () throws(VipsError) -> PixelBuffer
        let libvips: @Sendable (WorkBudget) throws(VipsError) -> VipsImageRef
    }

    /// The work for `plan`, or nil when the decoded bitmap would pass 4 megapixels: larger
    /// images stream through libvips instead of being held whole. A full decode that is
    /// `heldWhole` anyway (not lazy) of a file with no profile to convert from is TurboJPEG's at
    /// any size: straight to the RGBA the caller gets, where libvips adds a pass (its RGB rows,
    /// then RGBA), and stoppable between rows (`TurboJPEG.decode`). With a profile, libvips'
    /// lcms transform keeps converting large images, as before.
    private static func work(
        for data: Data, stored: TurboJPEG.Header, header: VipsHeader, profile: Data?, plan: DecodePlan, heldWhole: Bool
    ) throws(VipsError) -> Work? {
        let orientation = header.orientation
        switch plan.mode {
        case .full:
            guard stored.width * stored.height <= BitmapThumbnail.maxPixelCount || (heldWhole && profile == nil) else { return nil }
            return Work(
                size: (header.width, header.height),
                bitmap: { () throws(VipsError) in
                    try TurboJPEG.decode(data, header: stored, colourProfile: profile, orientation: orientation)
                },
                libvips: { (budget) throws(VipsError) in
                    let image = try VipsLoader.budgetedJPEG(data, shrink: 1, budget: budget)
                    return orientation > 1 ? try image.heldWhole().autorotated() : image
                }
            )
        case let .thumbnail(width, height, stretch):
            // libvips' size, from the DCT scale its thumbnail would load at.
            let libvipsShrink = libvipsJPEGShrink(header: header, width: width, height: height, stretch: stretch)
            let size = try BitmapThumbnail.libvipsSize(
                header: header, shrink: libvipsShrink, width: width, height: height, stretch: stretch
            )
            // Decoded at the smallest DCT scale that still covers the thumbnail (sharp's fast
            // shrink-on-load; Pillow's draft): Lanczos-3 then has a factor below 2 left. A large
            // photo shrunk 8 times is small enough to hold whole.
            let shrink = TurboJPEG.shrink(stored, covering: orientation >= 5 ? (size.height, size.width) : size)
            guard (stored.width / shrink) * (stored.height / shrink) <= BitmapThumbnail.maxPixelCount else { return nil }
            return Work(
                size: size,
                bitmap: { () throws(VipsError) in
                    try TurboJPEG.thumbnail(data, header: stored, shrink: shrink, size: size, colourProfile: profile, orientation: orientation)
                },
                libvips: { (budget) throws(VipsError) in
                    try VipsLoader.budgetedJPEG(data, shrink: libvipsShrink, budget: budget)
                        .thumbnail(width: width, height: height, sizing: stretch ? .force : .down)
                }
            )
        }
    }

    /// libvips 8.14's `vips_thumbnail_find_jpegshrink`: the box in stored orientation, the
    /// shrink to fit it (each side on its own when stretched, never below 1), then a DCT scale
    /// that leaves at least a factor of 2 for the resize, never larger than the shorter side.
    static func libvipsJPEGShrink(header: VipsHeader, width: Int, height: Int, stretch: Bool) -> Int {
        let shrink = VipsLoader.libvipsCommonShrink(header: header, width: width, height: height, stretch: stretch)
        var factor = shrink >= 16 ? 8 : shrink >= 8 ? 4 : shrink >= 4 ? 2 : 1
        // libvips 8.14's loader makes a side of `side / factor` pixels, rounded down, and aborts
        // the process (a failed assertion, not an error) when that is 0: a JPEG 3 pixels wide and
        // thousands tall, thumbnailed, did (found by the `decode` fuzz target).
        while factor > 1 && min(header.storedWidth, header.storedHeight) < factor { factor /= 2 }
        return factor
    }

    public func encode(_ image: Image, format: ImageFormat, options: ImageCoderOptions) throws(ImageCodingError) -> Data {
        let box = options.encodeMaxPixelSize.pixelBox(rounding: .towardZero)
        let fitsBox = box.width < 1 || box.height < 1 || (image.pixelWidth <= box.width && image.pixelHeight <= box.height)
        // Metadata to keep: libvips' saver writes it (and rewrites the EXIF for the output); so
        // it writes progressive JPEGs.
        // A grey source is written grey while it stays grey, by libvips' saver.
        guard format == .jpeg, !image.hasAlpha, !image.colorInfo.isGrey, fitsBox, options.encodeMaxFileSize <= 0, !options.keepsMetadata(of: image),
              !options.encodeInterlaced,
              // An image holding its pixels whole gains nothing from libvips' streaming saver.
              image.pixelWidth * image.pixelHeight <= BitmapThumbnail.maxPixelCount || image.isDecoded
        else { return try fallback.encode(image, format: format, options: options) }
        let pixels: PixelBuffer
        do {
            pixels = try WorkBudget.attributingStops { () throws(VipsError) in try image.pixelsToEncode() }
        } catch {
            throw ImageCodingError(encoding: .jpeg, from: image.format, error)
        }
        // A WebP source's greyness is in its pixels only (VipsSaver's `greyStill` writes it).
        if image.format == .webP, pixels.isGreyUpToYUVRounding { return try fallback.encode(image, format: format, options: options) }
        do {
            return try TurboJPEG.encode(pixels, quality: VipsSaver.qualityValue(options.encodeCompressionQuality))
        } catch {
            throw ImageCodingError(encoding: .jpeg, from: image.format, error)
        }
    }
}
