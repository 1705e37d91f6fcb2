import CLibvips
import CVipsGlue
import Foundation

/// Renders a libvips load in a child process (the `webimage-render` program) that a CPU-time
/// budget ends: for loaders whose work cannot be stopped from within. poppler draws a PDF page
/// in one call (libvips' whole page, up to 4000x4000 pixels, per region) and librsvg a
/// 2000x2000 tile, and neither checks anything as it goes: a page that draws a form 10^8
/// times, or 40,000 rectangles over a tile, runs for minutes in that one call. A budget checked
/// between regions (`WorkBudget`) cannot end it; ending the process can. A crash in the
/// loader ends only the child, too.
public struct IsolatedRenderer: Sendable {
    /// The program run: `webimage-render`, or one that does what it does (`runChild`).
    public let executable: String

    public init(executable: String) {
        self.executable = executable
    }

    /// `webimage-render` beside this process's executable (where SwiftPM builds every program
    /// of the package), or the program the environment variable `WEBIMAGE_RENDER` names (empty:
    /// no isolation); nil when there is none.
    public static let standard: IsolatedRenderer? = {
        if let named = ProcessInfo.processInfo.environment["WEBIMAGE_RENDER"] {
            return named.isEmpty ? nil : IsolatedRenderer(executable: named)
        }
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        let beside = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("webimage-render").path
        return FileManager.default.isExecutableFile(atPath: beside) ? IsolatedRenderer(executable: beside) : nil
    }()

    /// Why a render in the child gave no pixels.
    public enum Failure: Error, Sendable, Equatable {
        /// The child used its CPU time budget (or ten times it in wall time) and was ended.
        case overBudget(Duration)
        /// The load failed (the loader's message), or the child could not run or ended otherwise.
        case failed(String)
    }

    /// Runs `operation` (a loader, or `thumbnail_buffer`) on `data` with `options` (and
    /// `loaderOptions`, thumbnail_buffer's for its loader) in a child process that may use
    /// `budget` of CPU time, and returns its 8-bit RGBA pixels.
    public func render(
        _ operation: String, options: String, loaderOptions: String?, data: Data, budget: Duration
    ) throws(Failure) -> PixelBuffer {
        let milliseconds = Self.milliseconds(budget)
        let input = wi_memory_file("webimage-render-input")
        let output = wi_memory_file("webimage-render-output")
        defer {
            if input >= 0 { close(input) }
            if output >= 0 { close(output) }
        }
        guard input >= 0, output >= 0, Self.writeAll(data, to: input), lseek(input, 0, SEEK_SET) == 0 else {
            throw .failed("cannot hand the data to \(executable): \(String(cString: strerror(errno)))")
        }
        let arguments = [executable, operation, options, loaderOptions ?? "-", String(milliseconds)]
        var status: Int32 = 0
        let capacity = 2048
        var message = [CChar](repeating: 0, count: capacity)
        // A child kept from the processor by a busy machine is given ten times its budget.
        let timeout = Int32(clamping: milliseconds * 10 + 10_000)
        let result = Self.withCStrings(arguments) { argv in
            wi_run_child(executable, argv, input, output, timeout, &status, &message, capacity)
        }
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // waitpid's status: the signal that ended the child in the low 7 bits, else its exit code above.
        let signal = status & 0x7F
        switch result {
        case -1: throw .failed("cannot run \(executable): \(String(cString: strerror(errno)))")
        case 1: throw .overBudget(budget)
        default: break
        }
        if signal == SIGPROF { throw .overBudget(budget) }
        if signal != 0 { throw .failed("\(executable) ended by signal \(signal)\(text.isEmpty ? "" : ": \(text)")") }
        if (status >> 8) & 0xFF != 0 { throw .failed(text.isEmpty ? "\(executable) failed" : text) }
        return try Self.pixels(in: output)
    }

    /// The pixels the child wrote: width, height and bands (32-bit little-endian each), then
    /// the rows.
    private static func pixels(in file: Int32) throws(Failure) -> PixelBuffer {
        var header = [UInt32](repeating: 0, count: 3)
        guard header.withUnsafeMutableBytes({ pread(file, $0.baseAddress, 12, 0) }) == 12 else {
            throw .failed("the renderer wrote no image")
        }
        let (width, height, bands) = (Int(UInt32(littleEndian: header[0])), Int(UInt32(littleEndian: header[1])), Int(UInt32(littleEndian: header[2])))
        let count = width.multipliedReportingOverflow(by: height).partialValue.multipliedReportingOverflow(by: bands)
        var fileStatus = stat()
        guard fstat(file, &fileStatus) == 0, bands == 4, width > 0, height > 0, !count.overflow,
              Int(fileStatus.st_size) == 12 + count.partialValue
        else { throw .failed("the renderer wrote an image of another size than it says") }
        // Mapped, not copied: the memory file's pages become the bitmap's.
        guard let pixels = PixelBuffer(mapping: file, offset: 12, count: count.partialValue, width: width, height: height, bands: bands) else {
            throw .failed("cannot map \(width)x\(height) pixels: \(String(cString: strerror(errno)))")
        }
        return pixels
    }

    // MARK: The child

    /// `webimage-render`'s whole work, given its arguments (the operation, its options, the
    /// loader's options or "-", the CPU time budget in milliseconds): reads the data from
    /// standard input, loads and renders it as 8-bit RGBA, writes it to standard output
    /// (width, height, bands, rows), and returns the exit status (1 with the error on standard
    /// error; 2 for bad arguments). The process ends with SIGPROF once it has used its budget.
    public static func runChild(_ arguments: [String]) -> Int32 {
        guard arguments.count == 5, let milliseconds = Int64(arguments[4]), milliseconds > 0 else {
            FileHandle.standardError.write(Data("usage: webimage-render OPERATION OPTIONS LOADER-OPTIONS|- BUDGET-MS < data\n".utf8))
            return 2
        }
        guard wi_limit_cpu_time(milliseconds) == 0 else {
            FileHandle.standardError.write(Data("cannot set the CPU time budget\n".utf8))
            return 1
        }
        let data = FileHandle.standardInput.readDataToEndOfFile()
        do {
            try Vips.start()
            let size: (width: Int, height: Int)
            if arguments[1] == "webpload_buffer" {
                // A still WebP at full size, decoded straight into the output: libvips' loader
                // would decode it into a temporary image first (a file, past 100 MB), then copy.
                var (width, height): (Int32, Int32) = (0, 0)
                let status = data.withUnsafeBytes { bytes in
                    wi_webp_decode_to_file(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, 1, 12, &width, &height)
                }
                guard status == 0 else { throw Vips.lastError(or: "cannot decode the WebP") }
                size = (Int(width), Int(height))
            } else {
                let image = try VipsImageRef.load(
                    arguments[1], data: data, options: arguments[2], loaderOptions: arguments[3] == "-" ? nil : arguments[3]
                )
                guard image.isEightBit, image.bands == 3 || image.bands == 4 else {
                    throw VipsError("the loader made \(image.bands) bands of another format than 8-bit RGB or RGBA")
                }
                // Rendered straight into the output (a memory file), not held whole first.
                guard wi_render_rgba8_to_file(image.pointer, 1, 12) == 0 else { throw Vips.lastError(or: "cannot compute pixels") }
                size = (image.width, image.height)
            }
            let header = [UInt32(size.width), UInt32(size.height), 4].map(\.littleEndian)
            guard header.withUnsafeBytes({ pwrite(1, $0.baseAddress, 12, 0) }) == 12 else {
                throw VipsError("cannot write the pixels: \(String(cString: strerror(errno)))")
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            return 1
        }
    }

    // MARK: Helpers

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let total = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return total >= Double(Int32.max) ? Int(Int32.max) : max(1, Int(total.rounded(.up)))
    }

    private static func writeAll(_ data: Data, to file: Int32) -> Bool {
        data.withUnsafeBytes { writeAll($0, to: file) }
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to file: Int32) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var done = 0
        while done < bytes.count {
            let written = write(file, base + done, bytes.count - done)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            done += written
        }
        return true
    }

    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return body(pointers)
    }
}
