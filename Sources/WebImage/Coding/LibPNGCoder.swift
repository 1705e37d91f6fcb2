import Foundation
internal import ImageEngine

/// 8-bit PNG up to 4 megapixels, through libpng: decoded whole (about twice as fast as libvips'
/// loader on such files), thumbnails resized by `PixelBuffer.resampled` to the size libvips'
/// thumbnail gives (colours weighted by alpha when the file has transparency). Files with
/// 16-bit samples, larger ones, animated ones, and files libpng stops at go to
/// `VipsImageCoder`. Encoding is left to the coders below it in `ImageCodersManager`.
public final class LibPNGCoder: ThrowingImageCoder {
    /// The coder the shared `ImageCodersManager` uses.
    public static let shared = LibPNGCoder()

    private let fallback: VipsImageCoder

    /// A coder that hands what it does not take to `fallback`.
    public init(fallback: VipsImageCoder = .shared) {
        self.fallback = fallback
    }

    public func canDecode(from data: Data) -> Bool {
        ImageFormat(sniffing: data) == .png
    }

    public func canEncode(to format: ImageFormat) -> Bool { false }

    public func decode(_ data: Data, options: ImageCoderOptions) throws(ImageCodingError) -> Image {
        guard let loader = VipsLoader(format: ImageFormat(sniffing: data)), loader.format == .png else {
            return try fallback.decode(data, options: options)
        }
        // libvips reads the header: orientation (eXIf), colour profile, alpha, the pixel limit.
        let header = try loader.header(of: data, options: options)
        let profile = VipsImageRef.isSRGBProfile(header.iccProfile) ? nil : header.iccProfile
        // A cICP chunk that says PQ, HLG or wide primaries needs the tone mapper libvips' path runs.
        guard header.pageCount == 1, header.storedWidth * header.storedHeight <= BitmapThumbnail.maxPixelCount,
              header.colourToConvert == nil,
              // 16-bit samples kept for `decodeToHDR` are libvips' to read.
              !(options.decodeToHDR && header.colorInfo.bitsPerComponent > 8),
              profile.map({ ColourConversion.supports($0, bands: 4) }) ?? true
        else { return try fallback.decode(data, options: options) }
        let orientation = header.orientation
        let hasAlpha = header.hasAlpha
        let plan = DecodePlan(header: header, options: options)
        let size: (width: Int, height: Int)
        let bitmap: @Sendable () throws -> PixelBuffer
        switch plan.mode {
        case .full:
            size = (header.width, header.height)
            bitmap = {
                try LibPNG.decode(data, maxPixels: BitmapThumbnail.maxPixelCount, allowsAlpha: hasAlpha, colourProfile: profile)
                    .oriented(orientation)
            }
        case let .thumbnail(width, height, stretch):
            do {
                size = try BitmapThumbnail.libvipsSize(header: header, shrink: 1, width: width, height: height, stretch: stretch)
            } catch {
                throw .corruptData(format: .png, reason: error.message)
            }
            bitmap = {
                try LibPNG.thumbnail(
                    data, maxPixels: BitmapThumbnail.maxPixelCount, size: size, orientation: orientation, hasAlpha: hasAlpha,
                    colourProfile: profile
                )
            }
        }
        if !options.decodeUseLazyDecoding {
            guard let pixels = try? bitmap() else { return try fallback.decode(data, options: options) }
            return Image(
                recipe: .bitmap(pixels), pixels: pixels, pixelWidth: size.width, pixelHeight: size.height,
                scale: options.decodeScaleFactor, format: .png, hasAlpha: hasAlpha, sourceByteCount: data.count,
                metadata: header.metadata, colorInfo: header.colorInfo
            )
        }
        // A file libpng refuses (16-bit samples) or stops at is read by libvips' loader, which
        // gives the same size or the error.
        let libvips = loader.recipe(for: data, header: header, plan: plan, frames: .still, budget: options.decodeTimeBudget.limit(for: plan))
        let recipe = ImageRecipe { () throws(VipsError) in
            do { return try VipsImageRef.wrapping(bitmap()) } catch { return try libvips.prepare() }
        }
        return Image(
            recipe: recipe, pixels: nil, pixelWidth: size.width, pixelHeight: size.height,
            scale: options.decodeScaleFactor, format: .png, hasAlpha: hasAlpha, sourceByteCount: data.count,
            metadata: header.metadata, colorInfo: header.colorInfo
        )
    }
}
