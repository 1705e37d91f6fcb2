import ArgumentParser
import Foundation
import WebImage

struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Load images through the manager (memory, disk cache, network) and say where each came from.",
        discussion: "Exit status: 0 when every image loaded, 1 when one failed, 64 for a usage error."
    )

    @Argument(help: "Image URLs (http, https, file, data) or file paths.")
    var urls: [String]

    @Option(name: .shortAndLong, help: "Write the image to FILE, or each image into the folder DIR.")
    var output: String?

    @Option(help: "Decode to fit WIDTHxHEIGHT pixels (cached under its own key).")
    var thumbnail: String?

    @Option(help: "Output format: jpeg, png, gif, webp, avif, heic, heif, tiff, jxl (default: the bytes as loaded).")
    var format: String?

    @Option(help: "Quality of lossy output formats, 1 to 100.")
    var quality: Int = 80

    @Option(help: "Load options, comma-separated: refreshCached, retryFailed, fromCacheOnly, fromLoaderOnly, highPriority, lowPriority, scaleDownLargeImages, decodeFirstFrameOnly, avoidDecodeImage.")
    var options: String?

    @Flag(help: "Neither read nor write the cache.")
    var noCache = false

    @OptionGroup var cache: CacheOptions

    func validate() throws {
        guard (1...100).contains(quality) else { throw ValidationError("--quality takes 1 to 100") }
        if let format, ImageFormat(fileExtension: format) == .undefined { throw ValidationError("unknown --format \(format)") }
        _ = try Self.thumbnailSize(thumbnail)
        _ = try Self.loadOptions(options)
    }

    func run() async throws {
        var loadOptions = try Self.loadOptions(options).union(.waitStoreCache)
        var context = WebImageContext()
        context.imageThumbnailPixelSize = try Self.thumbnailSize(thumbnail)
        if noCache {
            loadOptions.insert(.fromLoaderOnly)
            context.storeCacheType = .none
            context.originalStoreCacheType = .none
        }
        let manager = WebImageManager(cache: cache.makeCache(), loader: ImageLoadersManager.shared)
        let folder = output.map { path -> Bool in
            var isFolder: ObjCBool = false
            return urls.count > 1 || (FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue)
        } ?? false
        var failures = 0
        for argument in urls {
            let started = ContinuousClock.now
            do {
                let url = try URLArgument.url(argument)
                let result = try await manager.loadImage(with: url, options: loadOptions, context: context)
                let milliseconds = (ContinuousClock.now - started).components.attoseconds / 1_000_000_000_000_000
                    + (ContinuousClock.now - started).components.seconds * 1000
                let bytes = try await write(result, argument: argument, asFolder: folder)
                print("\(argument): \(Self.source(result.cacheType, url: url)) \(result.image.format) \(result.image.pixelWidth)x\(result.image.pixelHeight)"
                      + (bytes.map { " \($0) bytes" } ?? "") + " \(milliseconds) ms")
            } catch {
                failures += 1
                FileHandle.standardError.write(Data("\(argument): \(URLArgument.describe(error))\n".utf8))
            }
        }
        if failures > 0 { throw ExitCode.failure }
    }

    /// Writes the image when asked (re-encoded with --format or a thumbnail, else its bytes);
    /// returns the byte count shown.
    private func write(_ result: ImageLoadResult, argument: String, asFolder: Bool) async throws -> Int? {
        let target = format.map { ImageFormat(fileExtension: $0) }
        let needsEncoding = target != nil || result.data == nil
        let quality = Double(self.quality) / 100
        let image = result.image
        let bytes: Data? = needsEncoding ? try await BlockingPool.run {
            var options = ImageCoderOptions()
            options.encodeCompressionQuality = quality
            return try ImageCodersManager.shared.encode(image, format: target ?? .undefined, options: options)
        } : result.data
        guard let output, let bytes else { return bytes?.count }
        var destination = URL(fileURLWithPath: output)
        if asFolder {
            let base = result.url.deletingPathExtension().lastPathComponent
            let fileExtension = (target ?? ImageFormat(sniffing: bytes)).fileExtension
            destination.appendPathComponent((base.isEmpty ? "image" : base) + "." + fileExtension)
        }
        let file = destination
        let folder = asFolder ? URL(fileURLWithPath: output) : nil
        try await BlockingPool.run { try OutputFile.write(bytes, to: file, makingFolder: folder) }
        return bytes.count
    }

    /// Where the image came from: memory, disk, or the loader (network, file, data).
    static func source(_ cacheType: ImageCacheType, url: URL) -> String {
        switch cacheType {
        case .memory: "memory"
        case .disk: "disk"
        default: url.isFileURL ? "file" : url.scheme?.lowercased() == "data" ? "data" : "network"
        }
    }

    static func thumbnailSize(_ text: String?) throws -> CGSize? {
        guard let text else { return nil }
        let parts = text.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] > 0 else {
            throw ValidationError("--thumbnail takes WIDTHxHEIGHT, such as 300x200")
        }
        return CGSize(width: parts[0], height: parts[1])
    }

    static let optionNames: [String: WebImageOptions] = [
        "refreshcached": .refreshCached, "retryfailed": .retryFailed, "fromcacheonly": .fromCacheOnly,
        "fromloaderonly": .fromLoaderOnly, "highpriority": .highPriority, "lowpriority": .lowPriority,
        "scaledownlargeimages": .scaleDownLargeImages, "decodefirstframeonly": .decodeFirstFrameOnly,
        "avoiddecodeimage": .avoidDecodeImage, "progressiveload": .progressiveLoad,
    ]

    static func loadOptions(_ text: String?) throws -> WebImageOptions {
        var options: WebImageOptions = []
        for name in (text ?? "").split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            guard let option = optionNames[name.lowercased()] else { throw ValidationError("unknown option \(name) in --options") }
            options.insert(option)
        }
        return options
    }
}
