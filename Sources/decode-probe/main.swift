import Foundation
import WebImage

// Helper process for the decode-bomb tests:
//   decode-probe <file>
// decodes the file with the library's default options, as `ImageCodersManager.shared` does for
// any caller, and prints one line with the outcome ("decoded WxH, N frames" or "refused:
// <reason>"), then one with this process's peak resident memory ("peak <bytes>"), read from
// /proc/self/status. The parent cannot learn it from wait4: a child spawned with posix_spawn
// shares the parent's memory until exec, and Linux keeps that peak as the child's ru_maxrss.

guard CommandLine.arguments.count == 2, let data = FileManager.default.contents(atPath: CommandLine.arguments[1]) else {
    FileHandle.standardError.write(Data("usage: decode-probe <readable file>\n".utf8))
    exit(2)
}
do throws(ImageCodingError) {
    let image = try ImageCodersManager.shared.decode(data, options: ImageCoderOptions())
    print("decoded \(image.pixelWidth)x\(image.pixelHeight), \(image.frameCount) frames")
} catch {
    print("refused: \(error)")
}
let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
let peakKilobytes = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
    .flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) }
print("peak \((peakKilobytes ?? 0) * 1024)")
