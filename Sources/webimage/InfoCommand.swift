import ArgumentParser
import Foundation
import WebImage

struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print format, upright size, frame count, loop count and colour (bits, primaries, transfer, HDR) of each image.",
        discussion: "With --json, print what imgproxy Pro's /info answers instead: an object, or an array for several images."
    )

    @Argument(help: "Image files, file:// or http(s):// URLs.")
    var inputs: [String]

    @Flag(help: "Print /info's JSON (imgproxy Pro's field names).")
    var json = false

    @Option(help: "/info's options, as in its URL: 'bh:4:3/th:1/avg:1/exif:1:1/chs:sha256/do:1' (with --json; do:1: the faces).")
    var options: String?

    func validate() throws {
        if options != nil, !json { throw ValidationError("--options needs --json") }
        if let options {
            do { _ = try InfoOptions(parsing: options) } catch { throw ValidationError("\(error)") }
        }
    }

    func run() async throws {
        if json { return try await printJSON() }
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

    /// Prints each input's /info JSON: one object for one input, an array for several (of
    /// those read; the others' errors on standard error, and the exit status says so).
    private func printJSON() async throws {
        let infoOptions = try InfoOptions(parsing: options ?? "")
        var infos: [ImageInfo] = []
        var failures = 0
        for input in inputs {
            do {
                let data = try await InputFile.read(input)
                infos.append(try await BlockingPool.run { try ImageInfo(data: data, options: infoOptions) })
            } catch {
                failures += 1
                FileHandle.standardError.write(Data("\(input): \(error)\n".utf8))
            }
        }
        let encoder = ImageInfo.jsonEncoder(prettyPrinted: true)
        if inputs.count == 1, let info = infos.first {
            FileHandle.standardOutput.write(try encoder.encode(info) + Data("\n".utf8))
        } else if inputs.count > 1 {
            FileHandle.standardOutput.write(try encoder.encode(infos) + Data("\n".utf8))
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
