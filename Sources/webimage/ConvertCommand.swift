import ArgumentParser
import Foundation
import WebImage

struct ConvertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Decode an image, optionally thumbnail and transform it, and encode it again."
    )

    @Argument(help: "The input image: a file, file:// or http(s):// URL.")
    var input: String

    @Argument(help: "The output file; its extension picks the format unless --format is given.")
    var output: String

    @Option(help: "Shrink on decode to fit WIDTHxHEIGHT pixels (never upscales).")
    var thumbnail: String?

    @Option(help: "Quality of lossy formats, 1 to 100.")
    var quality: Int = 80

    @Option(help: "Output format: jpeg, png, gif, webp, avif, heic, heif, tiff, jxl.")
    var format: String?

    @Option(help: "Transforms, in order, such as 'resize=300x200,fill;round=12;blur=2' (see the README).")
    var transform: String?

    func run() async throws {
        let transformer: PipelineTransformer?
        do {
            transformer = try transform.map(TransformChain.parse)
        } catch {
            // One line naming the step, and the usage error status (64).
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(64)
        }
        var options = ImageCoderOptions()
        options.decodeUseLazyDecoding = true
        if let size = try FetchCommand.thumbnailSize(thumbnail) { options.decodeThumbnailPixelSize = size }
        guard (1...100).contains(quality) else { throw ValidationError("--quality takes 1 to 100") }
        options.encodeCompressionQuality = Double(quality) / 100
        let target = ImageFormat(fileExtension: format ?? URL(fileURLWithPath: output).pathExtension)
        guard target != .undefined else {
            throw ValidationError("cannot tell the output format: give --format or an extension")
        }
        let decodeOptions = options
        let destination = URL(fileURLWithPath: output)
        do {
            let data = try await InputFile.read(input)
            let (image, encoded) = try await BlockingPool.run {
                var image = try ImageCodersManager.shared.decode(data, options: decodeOptions)
                if let transformer {
                    guard let transformed = transformer.transformedImage(with: image, forKey: input) else {
                        throw ValidationError("the transform does not apply to this image")
                    }
                    image = transformed
                }
                let encoded = try ImageCodersManager.shared.encode(image, format: target, options: decodeOptions)
                try OutputFile.write(encoded, to: destination)
                return (image, encoded)
            }
            print("\(output): \(target) \(image.pixelWidth)x\(image.pixelHeight) \(encoded.count) bytes")
        } catch {
            // One line naming the input (and the output when it is the output that failed).
            FileHandle.standardError.write(Data("\(input): \(URLArgument.describe(error))\n".utf8))
            throw ExitCode.failure
        }
    }
}
