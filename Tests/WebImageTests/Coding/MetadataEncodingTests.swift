import Foundation
import ImageEngine
import Testing
import WebImage
import WebImageTestSupport

/// `encodeKeepsMetadata`: the file's EXIF, XMP, IPTC and ICC profile written again, read back
/// with libvips' own loaders (what any other tool reading the output sees).
@Suite(.offThePool) struct MetadataEncodingTests {
    static func options(keeping: Bool, lazy: Bool = false, thumbnail: CGSize = .zero) -> ImageCoderOptions {
        var options = ImageCoderOptions()
        options.encodeKeepsMetadata = keeping
        options.decodeUseLazyDecoding = lazy
        options.decodeThumbnailPixelSize = thumbnail
        options.encodeCompressionQuality = 0.8
        return options
    }

    /// TestICCProfile.jpg carries all four, its profile not sRGB: decoded whole (TurboJPEG), lazily
    /// (libvips' pipeline at encode) and as a thumbnail, the output keeps the EXIF tags, the XMP
    /// and IPTC as they were, and an sRGB profile for its pixels, converted to sRGB at decode.
    @Test(arguments: [(false, CGSize.zero), (true, .zero), (false, CGSize(width: 200, height: 200)), (true, CGSize(width: 200, height: 200))])
    func keepingWritesTheEXIFXMPIPTCAndTheProfileOfThePixels(lazy: Bool, thumbnail: CGSize) throws {
        let source = try TestImages.data("sdwebimage/TestICCProfile.jpg")
        let original = try WrittenMetadata(source)
        let options = Self.options(keeping: true, lazy: lazy, thumbnail: thumbnail)
        let image = try ImageCodersManager.shared.decode(source, options: options)
        let kept = try WrittenMetadata(try ImageCodersManager.shared.encode(image, format: .jpeg, options: options))
        #expect(original.exifContains("Adobe Photoshop CS5 Windows"))
        #expect(kept.exifContains("Adobe Photoshop CS5 Windows"))
        #expect(kept.xmp == original.xmp && kept.xmp != nil)
        #expect(kept.iptc == original.iptc && kept.iptc != nil)
        let sRGB = try Vips.builtInProfile("srgb")
        #expect(original.iccProfile != nil && kept.iccProfile == sRGB)
        #expect(kept.orientation == 1)
    }

    /// Decoded whole (TurboJPEG's pixels) or lazily (libvips' loader, which carries the file's
    /// metadata to the saver), every format's output carries none: libvips 8.14's WebP saver,
    /// which writes it in spite of `strip=true`, included.
    @Test(arguments: [false, true])
    func byDefaultTheOutputCarriesNone(lazy: Bool) throws {
        let source = try TestImages.data("sdwebimage/TestICCProfile.jpg")
        let options = Self.options(keeping: false, lazy: lazy)
        for format in [ImageFormat.jpeg, .png, .webP, .avif, .tiff, .gif] {
            let image = try ImageCodersManager.shared.decode(source, options: options)
            let written = try WrittenMetadata(try ImageCodersManager.shared.encode(image, format: format, options: options))
            #expect(written.isEmpty, "\(format)")
        }
    }

    /// An animated WebP's frames keep their timing when the saver's metadata chunks are removed.
    @Test func aStrippedAnimatedWebPStillAnimates() throws {
        let source = try TestImages.data("sdwebimage/TestImageAnimated.webp")
        let image = try ImageCodersManager.shared.decode(source, options: ImageCoderOptions())
        let output = try ImageCodersManager.shared.encode(image, format: .webP, options: ImageCoderOptions())
        #expect(try WrittenMetadata(output).isEmpty)
        let decoded = try TestImages.decoded(output)
        #expect(decoded.frameCount == image.frameCount && decoded.frameCount > 1)
        #expect(decoded.frameDuration(at: 1) == image.frameDuration(at: 1))
    }

    /// Animated WebP has a saver of its own (libwebp's animation encoder): kept metadata goes
    /// into the file's EXIF, XMP and ICCP chunks, beside frames and timing. The source is
    /// TestImage.gif's frames given TestICCProfile.jpg's metadata by that same saver.
    @Test func anAnimatedWebPKeepsTheEXIFXMPAndProfile() throws {
        let donor = try WrittenMetadata(TestImages.data("sdwebimage/TestICCProfile.jpg"))
        let frames = try VipsImageRef.load("gifload_buffer", data: TestImages.data("sdwebimage/TestImage.gif"), options: "n=-1")
        let source = try frames.replacingMetadata(exif: donor.exif, xmp: donor.xmp, iptc: nil, iccProfile: donor.iccProfile)
            .savedAsAnimatedWebP(quality: 80, keepsMetadata: true)
        let written = try WrittenMetadata(source)
        #expect(written.exifContains("Adobe Photoshop CS5 Windows") && written.xmp == donor.xmp && written.iccProfile == donor.iccProfile)
        let options = Self.options(keeping: true)
        let image = try ImageCodersManager.shared.decode(source, options: options)
        let output = try ImageCodersManager.shared.encode(image, format: .webP, options: options)
        let kept = try WrittenMetadata(output)
        #expect(kept.exifContains("Adobe Photoshop CS5 Windows") && kept.xmp == donor.xmp)
        #expect(kept.iccProfile == (try Vips.builtInProfile("srgb")))
        let decoded = try TestImages.decoded(output)
        #expect(decoded.frameCount == 5 && decoded.frameCount == image.frameCount)
        #expect(decoded.frameDuration(at: 1) == image.frameDuration(at: 1) && decoded.loopCount == image.loopCount)
    }

    /// A profile that is sRGB leaves the pixels as they are: it is kept byte for byte.
    @Test func anSRGBProfileIsKeptAsItIs() throws {
        let source = try TestImages.data("photos/hubble_deep_field.jpg")
        let options = Self.options(keeping: true, thumbnail: CGSize(width: 300, height: 300))
        let image = try ImageCodersManager.shared.decode(source, options: options)
        let kept = try WrittenMetadata(try ImageCodersManager.shared.encode(image, format: .jpeg, options: options))
        let original = try WrittenMetadata(source)
        #expect(original.iccProfile != nil && kept.iccProfile == original.iccProfile)
        #expect(kept.xmp == original.xmp)
    }

    /// Landscape_6.jpg is stored on its side with EXIF orientation 6: decoded pixels are upright,
    /// so the orientation written is 1, and the output shows upright everywhere.
    @Test(arguments: [false, true])
    func theOrientationWrittenIsOneForUprightPixels(lazy: Bool) throws {
        let source = try TestImages.data("exif-orientation/Landscape_6.jpg")
        #expect(try WrittenMetadata(source).orientation == 6)
        let options = Self.options(keeping: true, lazy: lazy, thumbnail: CGSize(width: 300, height: 300))
        let image = try ImageCodersManager.shared.decode(source, options: options)
        let output = try ImageCodersManager.shared.encode(image, format: .jpeg, options: options)
        let kept = try WrittenMetadata(output)
        #expect(kept.exif != nil && kept.orientation == 1)
        let decoded = try TestImages.decoded(output)
        #expect(decoded.pixelWidth == 300 && decoded.pixelHeight == 200)
    }

    /// Transforms keep the metadata of the image they transform.
    @Test func aTransformedImageKeepsItsMetadata() throws {
        let source = try TestImages.data("sdwebimage/TestICCProfile.jpg")
        let options = Self.options(keeping: true)
        let image = try ImageCodersManager.shared.decode(source, options: options)
        let transformer = PipelineTransformer(transformers: [
            ResizingTransformer(size: CGSize(width: 120, height: 120), scaleMode: .aspectFill), BlurTransformer(radius: 2),
        ])
        let transformed = try #require(transformer.transformedImage(with: image, forKey: "k"))
        let kept = try WrittenMetadata(try ImageCodersManager.shared.encode(transformed, format: .jpeg, options: options))
        #expect(kept.exifContains("Adobe Photoshop CS5 Windows") && kept.xmp != nil && kept.iptc != nil && kept.iccProfile != nil)
    }

    /// The formats libvips writes metadata into: each keeps the EXIF and the profile.
    @Test(arguments: [ImageFormat.png, .webP, .avif])
    func otherFormatsKeepTheEXIFAndTheProfile(format: ImageFormat) throws {
        let source = try TestImages.data("sdwebimage/TestICCProfile.jpg")
        let options = Self.options(keeping: true, thumbnail: CGSize(width: 100, height: 100))
        let image = try ImageCodersManager.shared.decode(source, options: options)
        let kept = try WrittenMetadata(try ImageCodersManager.shared.encode(image, format: format, options: options))
        #expect(kept.exifContains("Adobe Photoshop CS5 Windows"), "\(format)")
        let sRGB = try Vips.builtInProfile("srgb")
        #expect(kept.iccProfile == sRGB, "\(format)")
        #expect(kept.orientation == 1)
    }

    /// A PNG's metadata (an iTXt XMP packet) is kept into a JPEG.
    @Test func aPNGsXMPIsKept() throws {
        let source = try TestImages.data("sdwebimage/TestImage.png")
        let options = Self.options(keeping: true)
        let image = try ImageCodersManager.shared.decode(source, options: options)
        let original = try WrittenMetadata(source)
        let kept = try WrittenMetadata(try ImageCodersManager.shared.encode(image, format: .jpeg, options: options))
        #expect(original.xmp != nil && kept.xmp == original.xmp)
    }
}
