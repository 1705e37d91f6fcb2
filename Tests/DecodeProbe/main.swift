import Foundation
import ImageEngine
import WebImage

// Helper process for the decode-bomb tests:
//   decode-probe <file> [--thumbnail N] [--encode FORMAT] [--encode-limit PIXELS]
//                [--budget MS] [--animation-budget MS] [--repeat N]
// decodes the file with the library's default options, as `ImageCodersManager.shared` does for
// any caller (with `--thumbnail`, to fit N x N pixels; with `--encode`, lazily, then encodes it
// as FORMAT, every frame of an animation, as `webimage convert` does, within
// `encodeMaxTotalPixelCount` PIXELS when given; with `--budget`, a still image (or an
// animation's first frame) within MS milliseconds of CPU time, full size or thumbnail; with
// `--animation-budget`, an animation's frames within MS milliseconds; with `--repeat`, N times
// over, the last outcome printed: memory a failed run keeps shows as a peak that grows with
// N), and prints one line with the outcome ("decoded WxH, N frames", "encoded N bytes" or
// "refused: <reason>"), one with this process's peak resident memory ("peak <bytes>"), read
// from /proc/self/status, and one with the CPU time the decodes and encodes took, every thread
// of the process and of its child renderer counted ("cpu <nanoseconds>", from getrusage: what a
// budget stop is bounded by, whatever else the machine runs). The parent cannot learn the peak from wait4: a child
// spawned with posix_spawn shares the parent's memory until exec, and Linux keeps that peak as
// the child's ru_maxrss.

var arguments = CommandLine.arguments.dropFirst()
var options = ImageCoderOptions()
// Under a sanitizer the time budget stretches as the tests' bounds do (TestAllowance, whose
// target this process does not link: its peak memory is what the tests measure).
if let scale = ProcessInfo.processInfo.environment["WEBIMAGE_TEST_TIME_SCALE"].flatMap(Double.init), scale > 1 {
    let budget = options.decodeTimeBudget
    options.decodeTimeBudget = DecodeTimeBudget(thumbnail: budget.thumbnail * scale, fullSize: budget.fullSize * scale, animation: budget.animation * scale)
}
var target: ImageFormat?
var path: String?
var repeats = 1
while let argument = arguments.popFirst() {
    switch argument {
    case "--thumbnail":
        guard let side = arguments.popFirst().flatMap(Int.init) else { break }
        options.decodeThumbnailPixelSize = CGSize(width: side, height: side)
    case "--encode":
        target = arguments.popFirst().map { ImageFormat(fileExtension: $0) }
        options.decodeUseLazyDecoding = true
    case "--encode-limit":
        guard let pixels = arguments.popFirst().flatMap(Int.init) else { break }
        options.encodeMaxTotalPixelCount = pixels
    case "--budget":
        guard let milliseconds = arguments.popFirst().flatMap(Int.init) else { break }
        options.decodeTimeBudget.thumbnail = .milliseconds(milliseconds)
        options.decodeTimeBudget.fullSize = .milliseconds(milliseconds)
    case "--animation-budget":
        guard let milliseconds = arguments.popFirst().flatMap(Int.init) else { break }
        options.decodeTimeBudget.animation = .milliseconds(milliseconds)
    case "--repeat":
        guard let count = arguments.popFirst().flatMap(Int.init), count > 0 else { break }
        repeats = count
    default:
        path = argument
    }
}
guard let path, target != .undefined, let data = FileManager.default.contents(atPath: path) else {
    FileHandle.standardError.write(Data("usage: decode-probe <readable file> [--thumbnail N] [--encode FORMAT] [--encode-limit PIXELS] [--budget MS] [--animation-budget MS] [--repeat N]\n".utf8))
    exit(2)
}

/// The CPU time every thread of this process and its ended children (the renderer of a PDF, a
/// large SVG or lossless WebP) have used, in nanoseconds.
func processCPUTime() -> Int {
    [RUSAGE_SELF, RUSAGE_CHILDREN].reduce(0) { total, who in
        var usage = rusage()
        getrusage(__rusage_who_t(who.rawValue), &usage)
        return total + (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000_000 + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1_000
    }
}

// libvips' start is the process's, not the decode's.
try? Vips.start()
var outcome = ""
let started = processCPUTime()
for _ in 0..<repeats {
    do throws(ImageCodingError) {
        let image = try ImageCodersManager.shared.decode(data, options: options)
        if let target {
            let encoded = try ImageCodersManager.shared.encode(image, format: target, options: options)
            outcome = "encoded \(encoded.count) bytes"
        } else {
            outcome = "decoded \(image.pixelWidth)x\(image.pixelHeight), \(image.frameCount) frames"
        }
    } catch {
        outcome = "refused: \(error)"
    }
}
let used = processCPUTime() - started
print(outcome)
let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
let peakKilobytes = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
    .flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) }
print("peak \((peakKilobytes ?? 0) * 1024)")
print("cpu \(used)")
