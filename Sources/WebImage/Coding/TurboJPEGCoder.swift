import Foundation
import LibVips

/// JPEG through libjpeg-turbo's TurboJPEG API, for images up to `maxPixelCount`: decode at the
/// DCT scale nearest above the asked size, encode straight from pixels. On such images
/// libvips' fixed cost per pipeline outweighs the work; larger ones, CMYK files, files
/// TurboJPEG cannot read, and encodes that need more than plain pixels (alpha to flatten, a
/// size or byte budget) go to `VipsImageCoder`, which gives the same results.
public final class TurboJPEGCoder: ThrowingImageCoder {
    /// The coder the shared `ImageCodersManager` uses.
    public static let shared = TurboJPEGCoder()

    /// Images above this many pixels (source or encoded) go to libvips, which streams them
    /// instead of holding a whole bitmap. Same bound as the cached colour transforms.
    public static let maxPixelCount = VipsImageRef.cachedTransformMaxPixels

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
        guard let loader = VipsLoader(format: ImageFormat(sniffing: data)), loader.format == .jpeg,
              let stored = TurboJPEG.header(of: data), !stored.isCMYK,
              stored.width * stored.height <= Self.maxPixelCount
        else { return try fallback.decode(data, options: options) }
        // libvips reads the header too: orientation, colour profile, and the pixel limit.
        let header = try loader.header(of: data, options: options)
        let profile = VipsImageRef.isSRGBProfile(header.iccProfile) ? nil : header.iccProfile
        let plan = DecodePlan(header: header, options: options)
        // Full size decodes straight to RGBA; thumbnails to RGB (libvips' thumbnail resizes an
        // alpha band in float, premultiplied).
        let bands: Int
        if case .full = plan.mode { bands = 4 } else { bands = 3 }
        // A grey or broken profile: libvips knows what to do with it. Asked with the bands the
        // conversion will see, so that one cached conversion serves both.
        if let profile, !ColourConversion.supports(profile, bands: bands) { return try fallback.decode(data, options: options) }
        let orientation = header.orientation
        let pipeline: ImagePipeline
        let size: (width: Int, height: Int)
        do {
            switch plan.mode {
            case .full:
                pipeline = Self.source(data, shrink: 1, bands: bands, stored: stored, orientation: orientation, iccProfile: profile)
                    .appending { image throws(VipsError) in orientation > 1 ? try image.call("autorot") : image }
                size = (header.width, header.height)
            case let .thumbnail(width, height, stretch):
                // The DCT scale and the resize libvips' thumbnail_buffer would pick, so that both
                // engines give the same size and nearly the same pixels.
                let shrink = Self.libvipsJPEGShrink(header: header, width: width, height: height, stretch: stretch)
                let thumbnail = "width=\(width),height=\(height),size=\(stretch ? "force" : "down")"
                var steps = Self.source(data, shrink: shrink, bands: bands, stored: stored, orientation: orientation, iccProfile: nil)
                    .appending { image throws(VipsError) in try image.call("thumbnail_image", thumbnail) }
                if let profile {
                    // Converted after the resize, on the fewest pixels.
                    steps = steps.appending { image throws(VipsError) in
                        guard let converted = try image.renderedInSRGB(from: profile) else {
                            throw VipsError("the colour profile cannot be converted")
                        }
                        return try VipsImageRef.wrapping(converted)
                    }
                }
                pipeline = steps
                if let computed = Self.libvipsFitSize(header: header, shrink: shrink, width: width, height: height, stretch: stretch) {
                    size = computed
                } else {
                    // Ask libvips itself, on an image that is never computed (a few ms of set-up).
                    let probe = try VipsImageRef.placeholder(
                        width: stored.width / shrink, height: stored.height / shrink, bands: 3, orientation: orientation
                    ).call("thumbnail_image", thumbnail)
                    size = (probe.width, probe.height)
                }
            }
        } catch {
            throw .corruptData(format: .jpeg, reason: error.message)
        }
        var pixels: PixelBuffer?
        if !options.decodeUseLazyDecoding {
            do {
                // Every step works on at most `maxPixelCount` pixels: render in this thread.
                pixels = try pipeline.build().renderedRGBA(inline: true)
            } catch {
                throw .corruptData(format: .jpeg, reason: error.message)
            }
        }
        return Image(
            pipeline: pixels.map(ImagePipeline.bitmap) ?? pipeline, pixels: pixels,
            pixelWidth: size.width, pixelHeight: size.height, scale: options.decodeScaleFactor,
            format: .jpeg, hasAlpha: false, sourceByteCount: data.count
        )
    }

    /// TurboJPEG's decode at DCT scale 1/`shrink` into `bands` (3 or 4) samples a pixel (stored
    /// orientation, tagged with it), cropped like libvips' `jpegload` crops a shrunk load: to
    /// the stored size divided by `shrink`, rounded down. A file TurboJPEG stops at (any
    /// libjpeg warning) is read by libvips' jpegload at the same scale, which fails on
    /// truncation and tolerates stray bytes: the same size either way.
    private static func source(
        _ data: Data, shrink: Int, bands: Int, stored: TurboJPEG.Header, orientation: Int, iccProfile: Data?
    ) -> ImagePipeline {
        let size = TurboJPEG.scaledSize(stored, shrink: shrink)
        return ImagePipeline { () throws(VipsError) in
            do {
                let pixels = try TurboJPEG.decode(data, size: size, bands: bands, iccProfile: iccProfile)
                let image = try VipsImageRef.wrapping(pixels, orientation: orientation)
                let width = stored.width / shrink
                let height = stored.height / shrink
                guard width != size.width || height != size.height else { return image }
                return try image.call("extract_area", "left=0,top=0,width=\(width),height=\(height)")
            } catch {
                // libvips keeps the profile attached: the build's final sRGB conversion applies it.
                return try VipsImageRef.load("jpegload_buffer", data: data, options: "fail_on=truncated,shrink=\(shrink)")
            }
        }
    }

    /// The size libvips' thumbnail gives when fitting the image, loaded at 1/`shrink`, in the
    /// box: the image's sides over the larger of the two side ratios (never below 1), rounded.
    /// Checked against libvips 8.14 on every box from 8 to 400 pixels for five test JPEGs;
    /// nil for a stretch, and when a side lands on a rounding tie, which libvips resolves in
    /// its own way.
    static func libvipsFitSize(header: VipsHeader, shrink: Int, width: Int, height: Int, stretch: Bool) -> (width: Int, height: Int)? {
        guard !stretch else { return nil }
        let swapped = header.orientation >= 5
        let loadedWidth = Double((swapped ? header.storedHeight : header.storedWidth) / shrink)
        let loadedHeight = Double((swapped ? header.storedWidth : header.storedHeight) / shrink)
        let factor = max(1, loadedWidth / Double(width), loadedHeight / Double(height))
        let sides = [loadedWidth * (1 / factor), loadedHeight * (1 / factor)]
        guard sides.allSatisfy({ abs($0 - $0.rounded(.down) - 0.5) > 1e-6 }) else { return nil }
        return (max(1, Int(sides[0].rounded())), max(1, Int(sides[1].rounded())))
    }

    /// libvips 8.14's `vips_thumbnail_find_jpegshrink`: the box in stored orientation, the
    /// shrink to fit it (each side on its own when stretched, never below 1), then a DCT scale
    /// that leaves at least a factor of 2 for the resize, which keeps block artefacts out.
    static func libvipsJPEGShrink(header: VipsHeader, width: Int, height: Int, stretch: Bool) -> Int {
        let swapped = header.orientation >= 5
        var horizontal = Double(header.storedWidth) / Double(swapped ? height : width)
        var vertical = Double(header.storedHeight) / Double(swapped ? width : height)
        if !stretch {
            let fit = max(horizontal, vertical)
            (horizontal, vertical) = (fit, fit)
        }
        let shrink = min(max(1, horizontal), max(1, vertical))
        return shrink >= 16 ? 8 : shrink >= 8 ? 4 : shrink >= 4 ? 2 : 1
    }

    public func encode(_ image: Image, format: ImageFormat, options: ImageCoderOptions) throws(ImageCodingError) -> Data {
        let box = options.encodeMaxPixelSize
        let fitsBox = box.width < 1 || box.height < 1 || (image.pixelWidth <= Int(box.width) && image.pixelHeight <= Int(box.height))
        guard format == .jpeg, !image.hasAlpha, fitsBox, options.encodeMaxFileSize <= 0,
              image.pixelWidth * image.pixelHeight <= Self.maxPixelCount
        else { return try fallback.encode(image, format: format, options: options) }
        do {
            let pixels = try image.makeVipsImage().render()
            return try TurboJPEG.encode(pixels, quality: VipsSaver.qualityValue(options.encodeCompressionQuality))
        } catch {
            throw .encodingFailed(format: .jpeg, reason: error.message)
        }
    }
}
