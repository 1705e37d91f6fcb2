import Foundation
import ImageEngine
import WebImage

/// The cost of HDR sources (issue 33, part 6): a 300x200 JPEG thumbnail of SDWebImage's 10-bit
/// BT.2020 PQ HEIC and AVIF (decode, tone map, resize, encode), against
/// - the same job on an 8-bit SDR encode of the same picture (our tone-mapped decode, saved as
///   8-bit HEIC/AVIF at quality 90): the measure, which includes what a 10-bit decode
///   costs over an 8-bit one;
/// - libvips alone on the same 10-bit file (thumbnail_buffer, shrinking before anything, the
///   PQ samples read as sRGB: the wrong picture this replaced): the same decoder, so the ratio
///   is what tone mapping and its path cost.
enum HDRBenchmarks {
    static func run() throws {
        print("\nHDR: 300x200 JPEG thumbnail of a 10-bit PQ source")
        let testdata = try CoderBenchmarks.testdataDirectory()
        for (file, format) in [("sdwebimage/TestHDR.heic", ImageFormat.heic), ("sdwebimage/TestHDR.avif", .avif)] {
            let hdr = try Data(contentsOf: testdata.appendingPathComponent(file))
            var encode = ImageCoderOptions()
            encode.encodeCompressionQuality = 0.9
            let sdr = try ImageCodersManager.shared.encode(ImageCodersManager.shared.decode(hdr, options: ImageCoderOptions()), format: format, options: encode)
            let ours = try PairedRatio(rounds: 15, ours: { try thumbnailJob(hdr) }, baseline: { try thumbnailJob(sdr) })
            ours.printed("\(file) vs its 8-bit SDR \(format)", baselineLabel: "8-bit SDR")
            let alone = try PairedRatio(rounds: 15, ours: { try thumbnailJob(hdr) }, baseline: { try libvipsAlone(hdr) })
            alone.printed("\(file) vs libvips alone (no tone map)", baselineLabel: "libvips")
        }
        // HDR kept (decodeToHDR): the thumbnail's 16-bit samples, resized by a transformer and
        // written as a 16-bit PNG with cICP, against the tone-mapped 8-bit PNG of the same job;
        // the gain-map JPEG's rendition (the map applied at full size) against its base image.
        print("\nHDR kept: 300x200 thumbnail, resized to 200x200 (aspect fill), 16-bit PNG out")
        for file in ["sdwebimage/TestHDR.heic", "sdwebimage/TestHDR.avif", "sdwebimage/TestHDR.jpeg"] {
            let data = try Data(contentsOf: testdata.appendingPathComponent(file))
            let kept = try PairedRatio(
                rounds: 15, ours: { try thumbnailJob(data, hdr: true, format: .png) }, baseline: { try thumbnailJob(data, hdr: false, format: .png) }
            )
            kept.printed("\(file) kept HDR vs tone mapped (or base) SDR", baselineLabel: "SDR")
        }
    }

    /// Our thumbnail job: bytes in, a 300x200 thumbnail out (JPEG at quality 80); with `hdr`
    /// decoded to HDR and resized by a transformer, to keep HDR through it.
    static func thumbnailJob(_ data: Data, hdr: Bool = false, format: ImageFormat = .jpeg) throws {
        var options = ImageCoderOptions()
        options.decodeThumbnailPixelSize = CGSize(width: 300, height: 200)
        options.decodeUseLazyDecoding = true
        options.decodeToHDR = hdr
        options.encodeCompressionQuality = 0.8
        var image = try ImageCodersManager.shared.decode(data, options: options)
        if format != .jpeg {
            let resize = ResizingTransformer(size: CGSize(width: 200, height: 200), scaleMode: .aspectFill)
            image = resize.transformedImage(with: image, forKey: "") ?? image
        }
        _ = try ImageCodersManager.shared.encode(image, format: format, options: options)
    }

    /// libvips' own thumbnail of the file, its samples taken as sRGB.
    static func libvipsAlone(_ data: Data) throws {
        let image = try VipsImageRef.load("thumbnail_buffer", data: data, options: "width=300,height=200,size=down", loaderOptions: "fail_on=truncated")
        _ = try image.normalizedToSRGB().save("jpegsave_buffer", options: "Q=80,strip=true")
    }
}
