import ArgumentParser
import Foundation
import WebImage

struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print format, upright size, frame count and loop count of each image."
    )

    @Argument(help: "Image files, file:// or http(s):// URLs.")
    var inputs: [String]

    func run() async throws {
        var failures = 0
        for input in inputs {
            do {
                let data = try await InputFile.read(input)
                let header = try await BlockingPool.run { try ImageHeader(probing: data) }
                print("\(input): \(header.format) \(header.pixelWidth)x\(header.pixelHeight) frames=\(header.frameCount) loop=\(header.loopCount)")
            } catch {
                failures += 1
                FileHandle.standardError.write(Data("\(input): \(error)\n".utf8))
            }
        }
        if failures > 0 { throw ExitCode.failure }
    }
}
