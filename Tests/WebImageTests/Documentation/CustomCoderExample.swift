import Foundation
import Testing
import WebImage
import WebImageTestSupport

// The example of the catalog's "Writing a custom coder" article (Sources/WebImage/WebImage.docc),
// compiled and run here: `ArticleCodeTests` checks that the article quotes these lines.

extension ImageFormat {
    /// Binary PPM (Netpbm `P6`): a number of its own, outside SDWebImage's.
    static let portablePixmap = ImageFormat(rawValue: 1000)
}

/// Reads and writes binary PPM files with 8-bit samples: `P6`, the width, the height and 255,
/// each followed by one whitespace byte, then the RGB bytes row by row. Comments in the header
/// are not read.
struct PortablePixmapCoder: ThrowingImageCoder {
    func canDecode(from data: Data) -> Bool {
        data.starts(with: Array("P6".utf8))
    }

    func canEncode(to format: ImageFormat) -> Bool {
        format == .portablePixmap
    }

    func decode(_ data: Data, options: ImageCoderOptions) throws(ImageCodingError) -> Image {
        let bytes = [UInt8](data)
        var numbers: [Int] = []
        var index = 2
        while numbers.count < 3 {
            while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
            let start = index
            var value = 0
            // At most 8 digits: no number here overflows, however long the input.
            while index < bytes.count, index - start < 8, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                value = value * 10 + Int(bytes[index] - 0x30)
                index += 1
            }
            guard index > start, index < bytes.count, Self.isSpace(bytes[index]) else {
                throw .corruptData(format: .portablePixmap, reason: "malformed header")
            }
            numbers.append(value)
            index += 1
        }
        let (width, height) = (numbers[0], numbers[1])
        guard width > 0, height > 0, numbers[2] == 255 else {
            throw .corruptData(format: .portablePixmap, reason: "not an 8-bit image")
        }
        // The decode limit, checked before allocating anything.
        guard width * height <= options.decodeMaxPixelCount else {
            throw .tooManyPixels(width: width, height: height, limit: options.decodeMaxPixelCount)
        }
        guard bytes.count - index >= width * height * 3 else {
            throw .corruptData(format: .portablePixmap, reason: "truncated")
        }
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        for pixel in 0..<width * height {
            rgba[pixel * 4..<pixel * 4 + 3] = bytes[index + pixel * 3..<index + pixel * 3 + 3]
        }
        guard let image = Image(rgba8Pixels: rgba, width: width, height: height, scale: options.decodeScaleFactor) else {
            throw .corruptData(format: .portablePixmap, reason: "no pixels")
        }
        return try Self.thumbnail(of: image, options: options)
    }

    func encode(_ image: Image, format: ImageFormat, options: ImageCoderOptions) throws(ImageCodingError) -> Data {
        guard format == .portablePixmap else { throw .unsupportedFormat(format) }
        var data = Data("P6\n\(image.pixelWidth) \(image.pixelHeight)\n255\n".utf8)
        do {
            // Upright sRGB RGBA8, whatever the image was decoded from; PPM keeps no alpha.
            try image.withUnsafeRGBA8Bytes { rgba in
                data.reserveCapacity(data.count + rgba.count / 4 * 3)
                for pixel in stride(from: 0, to: rgba.count, by: 4) {
                    data.append(contentsOf: rgba[pixel..<pixel + 3])
                }
            }
        } catch {
            throw .encodingFailed(format: format, reason: "\(error)")
        }
        return data
    }

    /// The image fitted in `decodeThumbnailPixelSize` (never enlarged), as the built-in coders
    /// decode thumbnails; the image itself when no size is set.
    private static func thumbnail(of image: Image, options: ImageCoderOptions) throws(ImageCodingError) -> Image {
        let box = options.decodeThumbnailPixelSize
        guard box.width >= 1, box.height >= 1 else { return image }
        let pixels = CGSize(width: image.pixelWidth, height: image.pixelHeight)
        let fitted = ImageCoderHelper.scaledSize(
            imageSize: pixels, scaleSize: box, preserveAspectRatio: options.decodePreserveAspectRatio, shouldScaleUp: false
        )
        guard fitted != pixels else { return image }
        // The transformer's size is in points: pixels divided by the image's scale.
        let points = CGSize(width: fitted.width / image.scale, height: fitted.height / image.scale)
        guard let thumbnail = ResizingTransformer(size: points, scaleMode: .fill).transformedImage(with: image, forKey: "") else {
            throw .corruptData(format: .portablePixmap, reason: "cannot resize")
        }
        return thumbnail
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }
}

extension Documentation {
    @Suite("A custom coder", .offThePool) struct CustomCoderExample {
        @Test func encodesAndDecodesAPhotoLosslessly() throws {
            let photo = try #require(Image(data: TestImages.data("photos/rocket.jpg")))

            let coders = ImageCodersManager(coders: ImageCodersManager.shared.coders + [PortablePixmapCoder()])
            let ppm = try coders.encode(photo, format: .portablePixmap, options: ImageCoderOptions())
            let decoded = try coders.decode(ppm, options: ImageCoderOptions())   // the PPM coder: "P6" comes first

            #expect(ppm.starts(with: Array("P6\n640 427\n255\n".utf8)) && ppm.count == 15 + 640 * 427 * 3)
            #expect(decoded.pixelWidth == 640 && decoded.pixelHeight == 427)
            let original = try photo.withUnsafeRGBA8Bytes { [UInt8]($0) }
            #expect(try decoded.withUnsafeRGBA8Bytes { [UInt8]($0) } == original)
        }

        @Test func decodesAThumbnailWhenAsked() throws {
            let photo = try #require(Image(data: TestImages.data("photos/rocket.jpg")))
            let ppm = try PortablePixmapCoder().encode(photo, format: .portablePixmap, options: ImageCoderOptions())
            var options = ImageCoderOptions()
            options.decodeThumbnailPixelSize = CGSize(width: 100, height: 100)
            let thumbnail = try PortablePixmapCoder().decode(ppm, options: options)
            #expect(thumbnail.pixelWidth == 100 && thumbnail.pixelHeight == 67)
        }

        @Test func loadsThroughTheManagerWithTheContextsCoder() async throws {
            let scratch = try ScratchFolder()
            defer { scratch.remove() }
            let photo = try #require(Image(data: TestImages.data("photos/rocket.jpg")))
            let file = URL(fileURLWithPath: scratch.path + "/rocket.ppm")
            try PortablePixmapCoder().encode(photo, format: .portablePixmap, options: ImageCoderOptions()).write(to: file)
            let manager = WebImageManager(cache: scratch.imageCache(), loader: ImageLoadersManager(loaders: [FileImageLoader()]))

            var context = WebImageContext()
            context.imageCoder = ImageCodersManager(coders: ImageCodersManager.shared.coders + [PortablePixmapCoder()])
            let image = try await manager.loadImage(with: file, context: context).image

            #expect(image.pixelWidth == 640 && image.pixelHeight == 427)
            // The shared coders do not read PPM: without the context's coder the file is bad data.
            await #expect(throws: WebImageError.badImageData) {
                try await manager.loadImage(with: file, options: .fromLoaderOnly)
            }
        }

        @Test func badInputGivesTypedErrors() {
            let coder = PortablePixmapCoder()
            let options = ImageCoderOptions()
            #expect(throws: ImageCodingError.corruptData(format: .portablePixmap, reason: "truncated")) {
                try coder.decode(Data("P6\n2 2\n255\n\u{1}\u{2}\u{3}".utf8), options: options)
            }
            #expect(throws: ImageCodingError.corruptData(format: .portablePixmap, reason: "malformed header")) {
                try coder.decode(Data("P6\n123456789012345678901234567890 1\n255\n".utf8), options: options)
            }
            #expect(throws: ImageCodingError.corruptData(format: .portablePixmap, reason: "not an 8-bit image")) {
                try coder.decode(Data("P6 1 1 65535\n\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}".utf8), options: options)
            }
            #expect(throws: ImageCodingError.tooManyPixels(width: 99_999_999, height: 99_999_999, limit: options.decodeMaxPixelCount)) {
                try coder.decode(Data("P6\n99999999 99999999\n255\n".utf8), options: options)
            }
            #expect(throws: ImageCodingError.unknownFormat) {
                try ImageCodersManager.shared.decode(Data("P6\n1 1\n255\n\u{0}\u{0}\u{0}".utf8), options: options)
            }
        }
    }
}
