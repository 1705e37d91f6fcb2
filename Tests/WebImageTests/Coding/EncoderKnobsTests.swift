import Foundation
import Testing
import WebImage
import WebImageTestSupport

/// The encoder knobs of `ImageCoderOptions` (`encodeInterlaced`, `encodePaletteColorCount`,
/// `encodeEffort`, `encodeWebPPreset`, `encodeKeptMetadata`, `decodeEmbeddedThumbnail`), each
/// seen in the bytes written.
@Suite(.offThePool) struct EncoderKnobsTests {
    static func encode(_ name: String, as format: ImageFormat, _ configure: (inout ImageCoderOptions) -> Void = { _ in }) throws -> Data {
        var options = ImageCoderOptions()
        options.encodeCompressionQuality = 0.8
        configure(&options)
        let image = try ImageCodersManager.shared.decode(try TestImages.data(name), options: options)
        return try ImageCodersManager.shared.encode(image, format: format, options: options)
    }

    /// The first SOF marker of a JPEG (0xC0 baseline, 0xC2 progressive), walking its segments.
    static func frameMarker(_ jpeg: Data) -> UInt8? {
        let bytes = [UInt8](jpeg)
        var index = 2
        while index + 4 <= bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            if [0xC0, 0xC1, 0xC2].contains(marker) { return marker }
            index += 2 + (Int(bytes[index + 2]) << 8 | Int(bytes[index + 3]))
        }
        return nil
    }

    @Test func interlacedWritesProgressiveJPEGAndAdam7PNG() throws {
        #expect(Self.frameMarker(try Self.encode("photos/rocket.jpg", as: .jpeg)) == 0xC0)
        #expect(Self.frameMarker(try Self.encode("photos/rocket.jpg", as: .jpeg) { $0.encodeInterlaced = true }) == 0xC2)
        // IHDR's interlace method, byte 28.
        #expect([UInt8](try Self.encode("sdwebimage/TestImage.png", as: .png))[28] == 0)
        #expect([UInt8](try Self.encode("sdwebimage/TestImage.png", as: .png) { $0.encodeInterlaced = true })[28] == 1)
    }

    @Test func paletteColorCountQuantisesPNGAndGIF() throws {
        let png = [UInt8](try Self.encode("photos/astronaut.png", as: .png) { $0.encodePaletteColorCount = 4 })
        // Colour type 3 (palette) at bit depth 2; PLTE of at most 4 entries.
        #expect(png[24] == 2 && png[25] == 3)
        let plte = try #require(Data(png).range(of: Data("PLTE".utf8)))
        let length = png[(plte.lowerBound - 4)..<plte.lowerBound].reduce(0) { $0 << 8 | Int($1) }
        #expect(length / 3 <= 4 && length / 3 >= 2)
        // A GIF's global colour table: 2^(n+1) entries, n in the screen descriptor's low bits.
        let gif = [UInt8](try Self.encode("photos/astronaut.png", as: .gif) { $0.encodePaletteColorCount = 16 })
        let full = [UInt8](try Self.encode("photos/astronaut.png", as: .gif))
        #expect(1 << ((gif[10] & 7) + 1) <= 16)
        #expect(1 << ((full[10] & 7) + 1) == 256)
    }

    @Test func effortAndPresetChangeWebPAVIFAndAnimatedWebP() throws {
        let low = try Self.encode("photos/rocket.jpg", as: .webP) { $0.encodeEffort = 0 }
        let high = try Self.encode("photos/rocket.jpg", as: .webP) { $0.encodeEffort = 6 }
        #expect(low != high && high.count < low.count)
        let drawing = try Self.encode("photos/rocket.jpg", as: .webP) { $0.encodeWebPPreset = .drawing }
        #expect(drawing != (try Self.encode("photos/rocket.jpg", as: .webP)))
        let fastAVIF = try Self.encode("sdwebimage/TestImage.jpg", as: .avif) { $0.encodeEffort = 0 }
        #expect(fastAVIF != (try Self.encode("sdwebimage/TestImage.jpg", as: .avif) { $0.encodeEffort = 9 }))
        let animatedLow = try Self.encode("sdwebimage/TestLoopCount.gif", as: .webP) { $0.encodeEffort = 0 }
        let animatedHigh = try Self.encode("sdwebimage/TestLoopCount.gif", as: .webP) { $0.encodeEffort = 6 }
        #expect(animatedLow != animatedHigh)
        #expect(try ImageHeader(probing: animatedHigh).frameCount == 2)
    }

    /// TestICCProfile.jpg carries EXIF (Software: Photoshop), XMP, IPTC and a profile.
    @Test func keptMetadataWritesTheKindsAsked() throws {
        let profileOnly = try WrittenMetadata(try Self.encode("sdwebimage/TestICCProfile.jpg", as: .jpeg) {
            $0.encodeKeepsMetadata = true
            $0.encodeKeptMetadata = .colorProfile
        })
        #expect(profileOnly.iccProfile != nil && profileOnly.xmp == nil && profileOnly.iptc == nil && !profileOnly.exifContains("Photoshop"))
        let copyrightOnly = try WrittenMetadata(try Self.encode("sdwebimage/TestICCProfile.jpg", as: .jpeg) {
            $0.encodeKeepsMetadata = true
            $0.encodeKeptMetadata = [.copyright, .xmp]
        })
        #expect(copyrightOnly.iccProfile == nil && copyrightOnly.xmp != nil && !copyrightOnly.exifContains("Photoshop"))
        let all = try WrittenMetadata(try Self.encode("sdwebimage/TestICCProfile.jpg", as: .jpeg) { $0.encodeKeepsMetadata = true })
        #expect(all.exifContains("Photoshop") && all.iccProfile != nil)
    }

    /// TestImage.heif is 1440x960 with a 240x160 thumbnail; TestImage.heic has none.
    @Test func embeddedThumbnailDecodesTheHEIFsThumbnail() throws {
        var options = ImageCoderOptions()
        options.decodeEmbeddedThumbnail = true
        let heif = try TestImages.data("sdwebimage/TestImage.heif")
        let thumbnail = try ImageCodersManager.shared.decode(heif, options: options)
        #expect(thumbnail.pixelWidth == 240 && thumbnail.pixelHeight == 160)
        #expect(try ImageHeader(probing: heif, embeddedThumbnail: true).pixelWidth == 240)
        #expect(try ImageHeader(probing: heif).pixelWidth == 1440)
        let heic = try ImageCodersManager.shared.decode(try TestImages.data("sdwebimage/TestImage.heic"), options: options)
        #expect(heic.pixelWidth == 1440)
    }
}
