import ArgumentParser
import Foundation
import WebImage

struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print format, upright size, frame count, loop count and colour (bits, primaries, transfer, HDR) of each image."
    )

    @Argument(help: "Image files, file:// or http(s):// URLs.")
    var inputs: [String]

    func run() async throws {
        var failures = 0
        for input in inputs {
            do {
                let data = try await InputFile.read(input)
                let header = try await BlockingPool.run { try ImageHeader(probing: data) }
                print("\(input): \(header.format) \(header.pixelWidth)x\(header.pixelHeight) frames=\(header.frameCount) loop=\(header.loopCount) \(Self.colour(header.colorInfo))")
            } catch {
                failures += 1
                FileHandle.standardError.write(Data("\(input): \(error)\n".utf8))
            }
        }
        if failures > 0 { throw ExitCode.failure }
    }

    /// `bits=10 primaries=BT.2020 transfer=PQ range=limited icc=no hdr=yes headroom=4.93`.
    static func colour(_ info: ImageColorInfo) -> String {
        var text = "bits=\(info.bitsPerComponent) primaries=\(info.primaries) transfer=\(info.transfer)"
        text += " range=\(info.isFullRange ? "full" : "limited") icc=\(info.hasICCProfile ? "yes" : "no")"
        if let gainMap = info.gainMap { text += " gainmap=\(gainMap.pixelWidth)x\(gainMap.pixelHeight)" }
        text += " hdr=\(info.isHighDynamicRange ? "yes" : "no")"
        if info.isHighDynamicRange { text += " headroom=" + String(format: "%.2f", info.headroom) }
        return text
    }
}
