import Foundation
import Synchronization
import Testing
import WebImage
import WebImageServer
import WebImageTestSupport

/// A plain thumbnail (fit or fill, no other option) is the library's thumbnail job: one decode
/// shrunk on load to the result's size, whose image goes to the encoder as it came, so the same
/// bytes as `decode` + `encode` of the library; an option asked for adds its step.
@Suite(.offThePool) struct PlainThumbnailTests {
    /// The shared coders, with each decode's options and image and each image encoded recorded.
    final class RecordingCoder: ThrowingImageCoder {
        struct Records {
            var decodes: [(options: ImageCoderOptions, image: WebImage.Image)] = []
            var encoded: [WebImage.Image] = []
        }

        let records = Mutex(Records())

        func canDecode(from data: Data) -> Bool { ImageCodersManager.shared.canDecode(from: data) }
        func canEncode(to format: ImageFormat) -> Bool { ImageCodersManager.shared.canEncode(to: format) }

        func decode(_ data: Data, options: ImageCoderOptions) throws(ImageCodingError) -> WebImage.Image {
            let image = try ImageCodersManager.shared.decode(data, options: options)
            records.withLock { $0.decodes.append((options, image)) }
            return image
        }

        func encode(_ image: WebImage.Image, format: ImageFormat, options: ImageCoderOptions) throws(ImageCodingError) -> Data {
            records.withLock { $0.encoded.append(image) }
            return try ImageCodersManager.shared.encode(image, format: format, options: options)
        }
    }

    /// `source` processed by `options` through a recorder.
    static func process(_ source: String, _ options: String) async throws -> (ProcessedImage, RecordingCoder.Records) {
        let recorder = RecordingCoder()
        let parsed = try ImgproxyURLParser().options(parsing: options)
        let plan = OutputFormatPlan(options: parsed, accept: nil, configuration: ProcessingConfiguration())
        let processor = ImageProcessor(coders: ImageCodersManager(coders: [recorder]))
        let result = try await processor.process(try SourceImages.data(source), options: parsed, format: plan)
        return (result, recorder.records.withLock { $0 })
    }

    @Test(arguments: [
        (SourceImages.rocket, "rs:fill:300:200", 300, 200),
        (SourceImages.rocket, "rs:fit:300:200", 300, 200),
        (SourceImages.rocket, "rs:fit:200:200", 200, 133),
        ("photos/astronaut.png", "rs:fill:200:200", 200, 200),
        ("photos/astronaut.png", "rs:fit:300:200", 200, 200),
        (SourceImages.alphaPNG, "rs:fit:100:100", 100, 100),
    ])
    func aPlainThumbnailIsTheLibrarysJob(source: String, options: String, width: Int, height: Int) async throws {
        let (result, records) = try await Self.process(source, options)
        #expect(result.pixelWidth == width && result.pixelHeight == height)
        // One decode, shrunk on load to the result, lazy: the encoder is handed its image.
        try #require(records.decodes.count == 1 && records.encoded.count == 1)
        let decode = records.decodes[0]
        #expect(decode.options.decodeThumbnailPixelSize == CGSize(width: width, height: height) && decode.options.decodeUseLazyDecoding)
        #expect(records.encoded[0] === decode.image, "a step ran between the decode and the encoder")
        // The library's job, decode + encode at the same quality, gives the same bytes.
        let data = try SourceImages.data(source)
        var decoding = ImageCoderOptions()
        decoding.decodeThumbnailPixelSize = CGSize(width: width, height: height)
        decoding.decodePreserveAspectRatio = false
        decoding.decodeUseLazyDecoding = true
        var encoding = ImageCoderOptions()
        encoding.encodeCompressionQuality = 0.8
        let library = try ImageCodersManager.shared.encode(
            ImageCodersManager.shared.decode(data, options: decoding), format: result.format, options: encoding
        )
        #expect(result.data == library, "\(result.data.count) bytes, the library's job \(library.count)")
    }

    @Test(arguments: ["rs:fill:150:150", "rs:fill:300:200/bl:2", "rs:fit:300:200/rot:90", "rs:fit:300:200/pd:10"])
    func anOptionAskedForAddsItsStep(options: String) async throws {
        let (_, records) = try await Self.process(SourceImages.rocket, options)
        try #require(records.decodes.count == 1 && records.encoded.count == 1)
        #expect(records.encoded[0] !== records.decodes[0].image, "\(options) ran no step")
    }
}
