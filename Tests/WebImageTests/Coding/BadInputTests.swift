import Foundation
import Testing
import WebImage
import WebImageTestServer
import WebImageTestSupport

@Suite(.offThePool) struct BadInputTests {
    /// Every format with a real file, animated GIF, WebP and APNG included.
    static let files = ["photos/rocket.jpg", "photos/astronaut.png", "sdwebimage/TestImage.gif", "sdwebimage/TestImageStatic.webp",
                        "sdwebimage/TestImage.heic", "sdwebimage/TestImageAnimated.apng", "sdwebimage/TestImage.svg",
                        "libjpeg-turbo/shira_bird8.bmp", "sdwebimage/TestImageAnimated.webp", "libjpeg-turbo/testimgint.jpg",
                        "sdwebimage/TestImage.heif", "sdwebimage/TestImage.pdf", "sdwebimage/TestLoopCount.gif",
                        "photos/no_time_for_that_tiny.gif"]

    static func decode(_ data: Data, _ options: ImageCoderOptions = ImageCoderOptions()) throws(ImageCodingError) -> Image {
        try ImageCodersManager.shared.decode(data, options: options)
    }

    @Test func emptyDataIsATypedError() {
        #expect(throws: ImageCodingError.emptyData) { try Self.decode(Data()) }
        #expect(Image(data: Data()) == nil)
    }

    static let cuts = [0.1, 0.5, 0.99]

    /// A typed error (not `.emptyData`) and no image for `data`.
    static func expectRefused(_ data: Data, _ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let image = try decode(data)
            Issue.record("\(comment): decoded as \(image.pixelWidth)x\(image.pixelHeight), \(image.frameCount) frames", sourceLocation: sourceLocation)
        } catch {
            #expect(error != .emptyData, comment, sourceLocation: sourceLocation)
        }
        #expect(Image(data: data) == nil, comment, sourceLocation: sourceLocation)
    }

    @Test(arguments: files)
    func truncatedFilesGiveAnErrorNeverAHalfImage(file: String) throws {
        let data = try TestImages.data(file)
        // The whole file decodes: the errors below come from the cuts.
        _ = try TestImages.decoded(data)
        for fraction in Self.cuts {
            Self.expectRefused(data.prefix(Int(Double(data.count) * fraction)), "\(file) cut at \(fraction)")
        }
    }

    /// Formats without a real file here (a still GIF, TIFF, AVIF): written by the encoder from a
    /// real image, then cut.
    @Test(arguments: [ImageFormat.gif, .tiff, .avif])
    func truncatedEncodedFilesGiveAnError(format: ImageFormat) throws {
        let image = try TestImages.decoded(try TestImages.data("sdwebimage/TestImage.png"))
        let data = try ImageCodersManager.shared.encode(image, format: format, options: ImageCoderOptions())
        #expect(try TestImages.decoded(data).pixelWidth == 300)
        for fraction in Self.cuts {
            Self.expectRefused(data.prefix(Int(Double(data.count) * fraction)), "\(format) cut at \(fraction)")
        }
    }

    @Test func randomBytesAreUnknown() {
        var generator = SeededGenerator(seed: 0xBAD_DA7A)
        for _ in 0..<50 {
            let bytes = Data((0..<1024).map { _ in UInt8.random(in: 0...255, using: &generator) })
            #expect(throws: ImageCodingError.unknownFormat) { try Self.decode(bytes) }
            #expect(Image(data: bytes) == nil)
        }
    }

    /// Every byte after the first 64 (a quarter of a smaller file) replaced by a seeded random one.
    @Test(arguments: ["sdwebimage/TestImage.png", "photos/rocket.jpg", "sdwebimage/TestImage.gif",
                      "sdwebimage/TestImageAnimated.apng"])
    func randomBytesAfterAValidHeaderFail(file: String) throws {
        var data = try TestImages.data(file)
        var generator = SeededGenerator(seed: 0x5EED_BAD)
        for index in stride(from: min(64, data.count / 4), to: data.count, by: 1) {
            data[data.startIndex + index] = UInt8.random(in: 0...255, using: &generator)
        }
        // PNG chunks carry CRCs, a JPEG's segments and a GIF's blocks no longer line up.
        Self.expectRefused(data, "\(file) with random bytes")
    }

    /// A lossy WebP has no checksum: random image data may still decode (with this seed it
    /// does), but only as what its intact header says, never at another size or as a crash.
    @Test func randomBytesInAWebPGiveAnErrorOrAnImageOfItsHeaderSize() throws {
        var data = try TestImages.data("sdwebimage/TestImageStatic.webp")
        let whole = try TestImages.decoded(data)
        var generator = SeededGenerator(seed: 0x5EED_BAD)
        for index in 64..<data.count {
            data[data.startIndex + index] = UInt8.random(in: 0...255, using: &generator)
        }
        if let image = Image(data: data) {
            #expect(image.pixelWidth == whole.pixelWidth && image.pixelHeight == whole.pixelHeight && !image.isAnimated)
        }
    }

    /// Caller sizes no image fits or that are not sizes at all: each means "no limit", as
    /// SDWebImage treats zero or a size larger than the image.
    static let unusableSides: [CGFloat] = [.infinity, .nan, 1e300, -1e300, -5, -.infinity]

    @Test(arguments: unusableSides)
    func unusableThumbnailSizesMeanNoLimit(side: CGFloat) throws {
        // TurboJPEG, libpng, libvips (GIF, WebP) and APNG decoders.
        for file in ["photos/rocket.jpg", "sdwebimage/TestImage.png", "sdwebimage/TestImage.gif",
                     "sdwebimage/TestImageStatic.webp", "sdwebimage/TestImageAnimated.apng"] {
            let data = try TestImages.data(file)
            let whole = try TestImages.decoded(data)
            var options = ImageCoderOptions()
            options.decodeThumbnailPixelSize = CGSize(width: side, height: side)
            let image = try Self.decode(data, options)
            #expect(image.pixelWidth == whole.pixelWidth && image.pixelHeight == whole.pixelHeight, "\(file) in \(side)")
            // The other side still applies.
            options.decodeThumbnailPixelSize = CGSize(width: side, height: 40)
            let fitted = try Self.decode(data, options)
            let width = Double(whole.pixelWidth) * 40 / Double(whole.pixelHeight)
            #expect(fitted.pixelHeight == 40 && abs(Double(fitted.pixelWidth) - width) <= 1, "\(file) in \(side) x 40")
        }
    }

    @Test(arguments: unusableSides)
    func unusableEncodeMaxPixelSizesMeanNoLimit(side: CGFloat) throws {
        let image = try TestImages.decoded(try TestImages.data("photos/rocket.jpg"))
        var options = ImageCoderOptions()
        options.encodeMaxPixelSize = CGSize(width: side, height: side)
        // JPEG goes to TurboJPEG, PNG and WebP to libvips.
        for format in [ImageFormat.jpeg, .png, .webP] {
            let encoded = try TestImages.decoded(try ImageCodersManager.shared.encode(image, format: format, options: options))
            #expect(encoded.pixelWidth == 640 && encoded.pixelHeight == 427, "\(format) in \(side)")
        }
    }

    /// Qualities past 0...1 are the nearest end of it.
    @Test(arguments: [(1e300, 1.0), (-1e300, 0.0), (2, 1), (-0.5, 0)])
    func outOfRangeQualitiesAreClamped(quality: Double, same: Double) throws {
        let image = try TestImages.decoded(try TestImages.data("photos/rocket.jpg"))
        var options = ImageCoderOptions()
        for format in [ImageFormat.jpeg, .webP] {
            options.encodeCompressionQuality = quality
            let asked = try ImageCodersManager.shared.encode(image, format: format, options: options)
            options.encodeCompressionQuality = same
            #expect(asked == (try ImageCodersManager.shared.encode(image, format: format, options: options)), "\(format) at \(quality)")
        }
    }

    /// A PNG whose header claims 100000 x 100000 pixels (CRC correct, so the header parses).
    static func hugePNG() -> Data {
        var ihdr = Data("IHDR".utf8)
        for value in [UInt32(100_000), UInt32(100_000)] { ihdr.append(contentsOf: withUnsafeBytes(of: value.bigEndian, Array.init)) }
        ihdr.append(contentsOf: [8, 6, 0, 0, 0])
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
        data.append(ihdr)
        data.append(contentsOf: withUnsafeBytes(of: crc32(ihdr).bigEndian, Array.init))
        data.append(contentsOf: [0, 0, 0, 0] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82])
        return data
    }

    static func crc32(_ data: Data) -> UInt32 {
        var crc = ~UInt32(0)
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }

    @Test func hugeHeaderIsRefusedBeforeAnyPixelIsAllocated() throws {
        let data = Self.hugePNG()
        // libvips' PNG reader refuses such a header itself; either way no pixel is allocated.
        #expect(throws: ImageCodingError.self) { try Self.decode(data) }
        #expect(Image(data: data) == nil)
    }

    /// A real JPEG whose frame header (SOF) is rewritten to claim `width` x `height` pixels.
    static func jpegClaiming(width: UInt16, height: UInt16) throws -> Data {
        var bytes = [UInt8](try TestImages.data("photos/rocket.jpg"))
        let frame = try #require(try JPEGSegments(bytes).segments.first { (0xC0...0xC2).contains($0.marker) })
        // Payload: precision, then height and width, big-endian.
        let size = frame.payload.lowerBound + 1
        bytes.replaceSubrange(size..<(size + 4), with: [UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF)])
        return Data(bytes)
    }

    @Test func aHeaderOverThePixelLimitIsRefusedByTheLimit() throws {
        // libjpeg reads this header happily: our limit (100 megapixels by default) refuses it.
        let data = try Self.jpegClaiming(width: 50_000, height: 50_000)
        #expect(throws: ImageCodingError.tooManyPixels(width: 50_000, height: 50_000, limit: 100_000_000)) {
            try Self.decode(data)
        }
        var lazy = ImageCoderOptions()
        lazy.decodeUseLazyDecoding = true
        #expect(throws: ImageCodingError.tooManyPixels(width: 50_000, height: 50_000, limit: 100_000_000)) {
            try Self.decode(data, lazy)
        }
        var thumbnail = ImageCoderOptions()
        thumbnail.decodeThumbnailPixelSize = CGSize(width: 100, height: 100)
        #expect(throws: ImageCodingError.tooManyPixels(width: 50_000, height: 50_000, limit: 100_000_000)) {
            try Self.decode(data, thumbnail)
        }
    }

    @Test func pixelLimitIsConfigurable() throws {
        var options = ImageCoderOptions()
        options.decodeMaxPixelCount = 1000
        #expect(throws: ImageCodingError.tooManyPixels(width: 80, height: 60, limit: 1000)) {
            try Self.decode(try TestImages.data("sdwebimage/TestImage.jpg"), options)
        }
    }

    @Test func brokenCRCIsAnError() throws {
        var data = try TestImages.data("pngsuite/basn2c08.png")
        // The IHDR chunk's CRC sits at bytes 29...32.
        data[29] ^= 0xFF
        #expect(throws: ImageCodingError.self) { try Self.decode(data) }
    }

    /// An SVG drawing a JPEG (opaque everywhere) over its whole canvas, by a `file://` URL or a
    /// bare path: the canvas must stay transparent, as it would be had the file not existed.
    @Test(arguments: ["file://", ""])
    func svgReferencingAnExternalFileDoesNotReadIt(scheme: String) throws {
        let picture = try TestImages.data("sdwebimage/TestImage.jpg")
        // 80x60, so drawn at 300x225 from y = 37.5 (centred): canvas (150, 150) is its pixel (40, 30),
        // (105, 92, 83, 255) in Pillow.
        let shown = try TestImages.decoded(picture)
        #expect(shown.pixelWidth == 80 && shown.pixelHeight == 60 && shown.pixel(x: 40, y: 30)?.alpha == 255)
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-secret-\(UUID().uuidString).jpg")
        try picture.write(to: secret)
        defer { try? FileManager.default.removeItem(at: secret) }
        let svg = """
        <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="300" height="300">
        <image xlink:href="\(scheme)\(secret.path)" width="300" height="300"/></svg>
        """
        let image = try Self.decode(Data(svg.utf8))
        #expect(image.pixelWidth == 300 && image.pixelHeight == 300)
        for (x, y) in [(150, 150), (40, 100), (260, 200)] {
            #expect(image.pixel(x: x, y: y) == RGBA8(red: 0, green: 0, blue: 0, alpha: 0), "pixel (\(x), \(y))")
        }
        // The control: the same picture embedded as a data: URI is drawn, opaque where the
        // external one left the canvas empty (so the check above can fail).
        let embedded = """
        <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="300" height="300">
        <image xlink:href="data:image/jpeg;base64,\(picture.base64EncodedString())" width="300" height="300"/></svg>
        """
        #expect(try Self.decode(Data(embedded.utf8)).pixel(x: 150, y: 150)?.alpha == 255)
    }
}
