import Foundation
import WebImageSupport
import WebImage

/// How one input of a `convert` run ended.
enum BatchOutcome: Sendable {
    /// What was written.
    struct Written: Sendable {
        let path: String
        let format: ImageFormat
        let pixelWidth: Int
        let pixelHeight: Int
        let bytesIn: Int
        let bytesOut: Int
    }

    case converted(Written)
    /// `--skip-existing` found its output newer than the input.
    case skipped
    case failed(argument: String, reason: String)
}

/// A `convert` run: each input read (URLs through `ImageDownloader.shared`, whose downloads of
/// one URL are shared), converted by `ImageConversion` and written whole, `jobs` at a time.
struct BatchRun: Sendable {
    let naming: OutputNaming
    /// `--format`.
    let format: ImageFormat?
    let conversion: ImageConversion
    /// Images decoded at once: at most this many decoded images are held, however many inputs.
    let jobs: Int
    let skipExisting: Bool

    /// Converts every input, reporting each outcome to `progress` as it comes.
    func run(_ inputs: [BatchInput], progress: inout BatchProgress) async {
        let claims = OutputClaims()
        // Outputs known before reading are claimed here, in the inputs' order, so that of two
        // inputs with one output the first is the one converted, whatever the timing.
        var work: [(input: BatchInput, output: String?)] = []
        for input in inputs {
            let output = naming.format(for: input, explicit: format, sniffed: nil).map { naming.path(for: input, format: $0) }
            if let output, let conflict = claims.claim(output, for: input) {
                progress.record(.failed(argument: input.argument, reason: "\(conflict)"))
            } else {
                work.append((input, output))
            }
        }
        let decodes = Slots(jobs)
        await withTaskGroup(of: BatchOutcome.self) { group in
            // Inputs are read (downloaded) up to `jobs` ahead of the decodes, so that the cores
            // do not wait for a download; each holds only its compressed bytes meanwhile.
            var next = work.makeIterator()
            for _ in 0..<(2 * jobs) {
                guard let item = next.next() else { break }
                group.addTask { await convert(item.input, plannedOutput: item.output, claims: claims, decodes: decodes) }
            }
            for await outcome in group {
                progress.record(outcome)
                if let item = next.next() {
                    group.addTask { await convert(item.input, plannedOutput: item.output, claims: claims, decodes: decodes) }
                }
            }
        }
    }

    /// Converts one input, its output path already claimed when `plannedOutput` is given.
    func convert(_ input: BatchInput, plannedOutput: String?, claims: OutputClaims, decodes: Slots) async -> BatchOutcome {
        do {
            var data: Data?
            var target = naming.format(for: input, explicit: format, sniffed: nil)
            if target == nil {
                // Neither the options nor the names tell the format: the bytes do.
                let bytes = try await InputFile.read(input.argument)
                data = bytes
                target = naming.format(for: input, explicit: format, sniffed: ImageFormat(sniffing: bytes))
            }
            guard let target else { throw ConversionError.unknownFormat }
            let output: String
            if let plannedOutput {
                output = plannedOutput
            } else {
                output = naming.path(for: input, format: target)
                if let conflict = claims.claim(output, for: input) { throw conflict }
            }
            if skipExisting {
                let inputPath = input.path
                if try await BlockingPool.run({ Self.isUpToDate(output, from: inputPath) }) { return .skipped }
            }
            let bytes: Data
            if let data { bytes = data } else { bytes = try await InputFile.read(input.argument) }
            let conversion = self.conversion
            let destination = URL(fileURLWithPath: output)
            let folder = naming.makesFolders ? destination.deletingLastPathComponent() : nil
            await decodes.acquire()
            let result: Result<BatchOutcome.Written, any Error>
            do {
                result = .success(try await BlockingPool.run {
                    let (image, encoded) = try conversion.convert(bytes, key: input.argument, to: target)
                    try OutputFile.write(encoded, to: destination, makingFolder: folder)
                    return BatchOutcome.Written(
                        path: output, format: target, pixelWidth: image.pixelWidth, pixelHeight: image.pixelHeight,
                        bytesIn: bytes.count, bytesOut: encoded.count
                    )
                })
            } catch {
                result = .failure(error)
            }
            await decodes.release()
            return .converted(try result.get())
        } catch {
            return .failed(argument: input.argument, reason: URLArgument.describe(error))
        }
    }

    /// Whether `output` exists and is not older than the file at `inputPath` (for a URL, whether
    /// it exists: a URL has no date to compare without fetching it).
    private static func isUpToDate(_ output: String, from inputPath: String?) -> Bool {
        var outputStatus = stat()
        guard stat(output, &outputStatus) == 0 else { return false }
        guard let inputPath else { return true }
        var inputStatus = stat()
        guard stat(inputPath, &inputStatus) == 0 else { return false }
        let (written, changed) = (outputStatus.st_mtim, inputStatus.st_mtim)
        return (written.tv_sec, written.tv_nsec) >= (changed.tv_sec, changed.tv_nsec)
    }
}

/// The outputs a run has taken, so that no two inputs write one file and none replaces its input.
final class OutputClaims: Sendable {
    private let claimed = Locked<[String: String]>([:])

    /// nil when `path` is `input`'s now; else why not.
    func claim(_ path: String, for input: BatchInput) -> ConversionError? {
        let key = URL(fileURLWithPath: path).standardizedFileURL.path
        if let inputPath = input.path, URL(fileURLWithPath: inputPath).standardizedFileURL.path == key {
            return .replacesInput
        }
        return claimed.withLock { claimed in
            if let owner = claimed[key] { return .sameOutput(as: owner) }
            claimed[key] = input.argument
            return nil
        }
    }
}

/// At most `count` holders at once; the others wait, in order.
actor Slots {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) {
        free = count
    }

    func acquire() async {
        guard free == 0 else {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}
