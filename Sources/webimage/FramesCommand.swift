import ArgumentParser
import Foundation
import WebImage

struct FramesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "frames",
        abstract: "Write every frame of an animated image as its own file, named with its index and duration."
    )

    @Argument(help: "The input image: a file, file:// or http(s):// URL.")
    var input: String

    @Option(name: .shortAndLong, help: "The folder to write the frames to (made if missing).")
    var output: String

    @Option(help: "Format of the frame files: png (the default), jpeg, webp, gif, tiff, avif.")
    var format: String = "png"

    func run() async throws {
        let target = ImageFormat(fileExtension: format)
        guard target != .undefined else { throw ValidationError("unknown format '\(format)'") }
        let folder = URL(fileURLWithPath: output)
        do {
            let data = try await InputFile.read(input)
            let count = try await BlockingPool.run {
                let image = try ImageCodersManager.shared.decode(data, options: ImageCoderOptions())
                let digits = max(3, String(image.frameCount - 1).count)
                for index in 0..<image.frameCount {
                    guard let frame = image.frame(at: index) else {
                        throw ImageCodingError.corruptData(format: image.format, reason: "frame \(index) cannot be decoded")
                    }
                    let milliseconds = Int((image.frameDuration(at: index) * 1000).rounded())
                    let number = String(repeating: "0", count: max(0, digits - String(index).count)) + String(index)
                    let name = "frame-\(number)-\(milliseconds)ms.\(target.fileExtension)"
                    let encoded = try ImageCodersManager.shared.encode(frame, format: target, options: ImageCoderOptions())
                    try OutputFile.write(encoded, to: folder.appendingPathComponent(name), makingFolder: index == 0 ? folder : nil)
                }
                return image.frameCount
            }
            print("\(input): \(count) frame\(count == 1 ? "" : "s") written to \(output)")
        } catch {
            FileHandle.standardError.write(Data("\(input): \(URLArgument.describe(error))\n".utf8))
            throw ExitCode.failure
        }
    }
}
