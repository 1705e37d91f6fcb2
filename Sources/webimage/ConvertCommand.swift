import ArgumentParser
import Foundation
import WebImage

struct ConvertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Decode images, optionally thumbnail and transform them, and encode them again.",
        discussion: """
            convert IN OUT converts one image into the file OUT. With -o DIR or --output PATTERN it \
            converts every input, --jobs at a time, with a progress bar on a terminal (done/total \
            lines otherwise) and a summary line. Exit status: 0 when every input was converted or \
            skipped, 1 when one failed (the others are still written), 64 for a usage error.
            """
    )

    @Argument(help: "Inputs: files, folders, globs, file:// or http(s):// URLs, '-' for a list on standard input (one a line). Without -o or --output: IN OUT, one image into the file OUT.")
    var inputs: [String]

    @Option(name: [.customShort("o"), .customLong("output-dir")], help: "Write into DIR: DIR/NAME.EXT (with --recursive, a folder's subfolders kept).")
    var outputFolder: String?

    @Option(name: .customLong("output"), help: "Name each output: %s the input's name without extension, %d its folder, %e its extension (a relative pattern is taken from each input's folder, as vipsthumbnail's -o).")
    var outputPattern: String?

    @Flag(help: "Take the images in folders' subfolders too.")
    var recursive = false

    @Option(help: "Images converted at once (default: the number of cores).")
    var jobs: Int?

    @Flag(help: "Skip inputs whose output exists and is not older than them.")
    var skipExisting = false

    @Option(help: "Shrink on decode to fit WIDTHxHEIGHT pixels (never upscales).")
    var thumbnail: String?

    @Option(help: "With --thumbnail: shrink to cover WIDTHxHEIGHT and cut it out where this says: 'face' (around the faces OpenCV finds, else as 'smart'), 'smart' (libvips' attention), 'centre'.")
    var gravity: ThumbnailGravity?

    @Option(help: "Quality of lossy formats, 1 to 100.")
    var quality: Int = 80

    @Option(help: "Output format: jpeg, png, gif, webp, avif, heic, heif, tiff, jxl (default: the output's extension, else the input's format).")
    var format: String?

    @Option(help: "Transforms, in order, such as 'resize=300x200,fill;round=12;blur=2' (see the README).")
    var transform: String?

    @Flag(name: [.customLong("interlace"), .customLong("progressive")], help: "Write JPEG progressive and PNG interlaced (Adam7).")
    var interlace = false

    @Option(name: [.customLong("colors"), .customLong("palette")], help: "Write PNG and GIF with a palette of at most N colours, 2 to 256 (rounded up to 2, 4, 16 or 256).")
    var colors: Int?

    @Option(help: "Encoder effort, in the output format's scale: WebP 0-6, AVIF and HEIC 0-9, JPEG XL 1-9, a PNG or GIF palette 1-10 (default: libvips').")
    var effort: Int?

    @Flag var metadata: MetadataHandling = .strip

    @Option(help: "HDR sources (PQ or HLG AVIF, HEIC, JPEG XL, PNG): 'tonemap' (the default) writes SDR; 'keep' writes AVIF, HEIC, JPEG XL and PNG outputs HDR, with the source's samples and colour encoding (other formats get SDR).")
    var hdr: HDRHandling = .tonemap

    func validate() throws {
        guard (1...100).contains(quality) else { throw ValidationError("--quality takes 1 to 100") }
        if let colors, !(2...256).contains(colors) { throw ValidationError("--colors takes 2 to 256") }
        if let effort, !(0...10).contains(effort) { throw ValidationError("--effort takes 0 to 10") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs takes 1 or more") }
        if let format, ImageFormat(fileExtension: format) == .undefined {
            throw ValidationError("unknown output format \(format)")
        }
        if outputFolder != nil, outputPattern != nil { throw ValidationError("give -o DIR or --output PATTERN, not both") }
        if outputFolder == nil, outputPattern == nil, inputs.count != 2 {
            throw ValidationError("give IN OUT, or -o DIR or --output PATTERN for many inputs")
        }
        _ = try FetchCommand.thumbnailSize(thumbnail)
        if gravity != nil, thumbnail == nil { throw ValidationError("--gravity crops a --thumbnail: give --thumbnail WIDTHxHEIGHT") }
    }

    func run() async throws {
        let transformer: PipelineTransformer?
        do {
            // A watermark step reads and decodes its mark: off the cooperative pool.
            let transform = self.transform
            transformer = try await BlockingPool.run { try transform.map(TransformChain.parse) }
        } catch {
            // One line naming the step, and the usage error status (64).
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(64)
        }
        let conversion = ImageConversion(
            thumbnail: try FetchCommand.thumbnailSize(thumbnail), gravity: gravity?.gravity, quality: quality, transformer: transformer,
            keepsMetadata: metadata == .keepMetadata, keepsHDR: hdr == .keep,
            encoding: EncodingKnobs(interlaced: interlace, paletteColorCount: colors ?? 0, effort: effort)
        )
        let explicitFormat = format.map { ImageFormat(fileExtension: $0) }
        let naming: OutputNaming = if let outputFolder { .folder(outputFolder) } else if let outputPattern { .pattern(outputPattern) } else { .file(inputs[1]) }
        let run = BatchRun(
            naming: naming, format: explicitFormat, conversion: conversion,
            jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount, skipExisting: skipExisting
        )
        if case .file(let output) = naming {
            try await convertOne(inputs[0], to: output, with: run)
        } else {
            try await convertAll(with: run)
        }
    }

    /// `convert IN OUT`: one line saying what was written, or the failure.
    private func convertOne(_ argument: String, to output: String, with run: BatchRun) async throws {
        let input = BatchInput(argument: argument)
        guard run.format != nil || ImageFormat(fileExtension: (output as NSString).pathExtension) != .undefined else {
            throw ValidationError("cannot tell the output format: give --format or an extension")
        }
        // Claimed already: IN OUT may name one file twice, converting it in place.
        switch await run.convert(input, plannedOutput: output, claims: OutputClaims(), decodes: Slots(1)) {
        case .converted(let written):
            print("\(output): \(written.format) \(written.pixelWidth)x\(written.pixelHeight) \(written.bytesOut) bytes")
        case .skipped:
            print("\(output): up to date, skipped")
        case .failed(let argument, let reason):
            // One line naming the input (and the output when it is the output that failed).
            FileHandle.standardError.write(Data("\(argument): \(reason)\n".utf8))
            throw ExitCode.failure
        }
    }

    private func convertAll(with run: BatchRun) async throws {
        let (arguments, recursive) = (inputs, self.recursive)
        let expansion = try await BlockingPool.run {
            InputExpansion(arguments, recursive: recursive) { FileHandle.standardInput.readDataToEndOfFile() }
        }
        var progress = BatchProgress(
            total: expansion.inputs.count + expansion.failures.count, terminal: isatty(STDOUT_FILENO) == 1
        )
        for failure in expansion.failures {
            progress.record(.failed(argument: failure.argument, reason: failure.reason))
        }
        await run.run(expansion.inputs, progress: &progress)
        FileHandle.standardOutput.write(Data((progress.summary() + "\n").utf8))
        if progress.hasFailures { throw ExitCode.failure }
    }
}

/// `--gravity`: where a `--thumbnail` that covers its box is cut.
enum ThumbnailGravity: String, ExpressibleByArgument, CaseIterable {
    case face
    case smart
    case centre

    var gravity: ImageGravity {
        switch self {
        case .face: .faces
        case .smart: .smart
        case .centre: .center
        }
    }
}

/// `--hdr tonemap` (the default) or `--hdr keep`.
enum HDRHandling: String, ExpressibleByArgument, CaseIterable {
    case tonemap
    case keep
}

/// `--strip` (the default) or `--keep-metadata`.
enum MetadataHandling: EnumerableFlag {
    case strip
    case keepMetadata

    static func help(for value: MetadataHandling) -> ArgumentHelp? {
        switch value {
        case .strip: "Write no metadata (the default)."
        case .keepMetadata: "Keep the input's EXIF (orientation 1: pixels are written upright), XMP, IPTC and ICC profile (sRGB when the pixels were converted to sRGB)."
        }
    }
}
