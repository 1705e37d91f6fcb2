import ArgumentParser
import Foundation
import WebImage
import WebImageServer

struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect or empty the disk cache.",
        discussion: """
        stats: entries and bytes; clean: remove expired entries (older than a week by access) and \
        trim to the size limit; clear: remove every entry; path: print the folder. With --bucket, the \
        shared result store `webimage serve` is set to instead (CACHE_USE=s3, CACHE_BUCKET, \
        CACHE_PATH_PREFIX and the S3 settings, read as serve reads them: environment, then --config): \
        stats counts its results and kept sources, clear removes them, path prints s3://BUCKET/PREFIX; \
        its expiry is the bucket's lifecycle rules (docs/server-shared-cache.md), so clean is refused. \
        Exit status: 0, 1 when the folder cannot be made or written or the store fails, 64 for a usage error.
        """
    )

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case stats, clean, clear, path
    }

    @Argument(help: "stats, clean, clear or path.")
    var action: Action

    @OptionGroup var cache: CacheOptions

    @Flag(help: "The shared result store of the server's settings (CACHE_USE=s3) instead of the disk cache.")
    var bucket = false

    @Option(help: "With --bucket: the server's JSON settings file, as serve's --config (else its environment variable, if set).")
    var config: String?

    func validate() throws {
        if config != nil && !bucket { throw ValidationError("--config goes with --bucket") }
    }

    func run() async throws {
        if bucket { return try await runOnSharedStore() }
        let imageCache = cache.makeCache()
        var isFolder: ObjCBool = false
        if action != .path,
           !FileManager.default.fileExists(atPath: imageCache.diskCachePath, isDirectory: &isFolder) || !isFolder.boolValue
            || !FileManager.default.isWritableFile(atPath: imageCache.diskCachePath) {
            FileHandle.standardError.write(Data("\(imageCache.diskCachePath): cannot use this cache folder (it cannot be made or written)\n".utf8))
            throw ExitCode.failure
        }
        switch action {
        case .path:
            print(imageCache.diskCachePath)
        case .stats:
            let (count, size) = await Self.countedEntries(of: imageCache)
            print("\(imageCache.diskCachePath): \(count) entries, \(size) bytes")
        case .clean:
            await withCheckedContinuation { continuation in imageCache.deleteOldFiles { continuation.resume() } }
            let (count, size) = await Self.countedEntries(of: imageCache)
            print("\(imageCache.diskCachePath): \(count) entries left, \(size) bytes")
        case .clear:
            await withCheckedContinuation { continuation in imageCache.clearDisk { continuation.resume() } }
            print("\(imageCache.diskCachePath): cleared")
        }
    }

    /// The action on the shared result store of the server's settings.
    private func runOnSharedStore() async throws {
        let settings: ResultCacheSettings
        do {
            settings = try await ImageServerConfiguration.load(arguments: ["webimage"] + (config.map { ["--config", $0] } ?? [])).resultCache
        } catch let error as ImageServerConfigurationError {
            throw ValidationError("\n" + error.description)
        }
        guard let location = settings.sharedStoreLocation else { throw ValidationError(SharedStoreError.notInUse.description) }
        do {
            switch action {
            case .path:
                print(location)
            case .stats:
                print("\(location): \(Self.describe(try await settings.sharedStoreContents()))")
            case .clear:
                print("\(location): removed \(Self.describe(try await settings.removeSharedStoreContents()))")
            case .clean:
                throw ValidationError("clean --bucket: the shared store's objects expire by the bucket's lifecycle rules (docs/server-shared-cache.md); clear removes them all")
            }
        } catch let error as SharedStoreError {
            FileHandle.standardError.write(Data("\(location): \(error)\n".utf8))
            throw ExitCode.failure
        }
    }

    private static func describe(_ contents: SharedStoreContents) -> String {
        "\(contents.results.objects) results, \(contents.results.bytes) bytes; \(contents.sources.objects) sources, \(contents.sources.bytes) bytes"
    }

    /// The folder's entries and bytes, counted on the cache's I/O queue (one listing, off the
    /// cooperative pool).
    private static func countedEntries(of imageCache: ImageCache) async -> (count: Int, size: Int) {
        await withCheckedContinuation { continuation in
            imageCache.calculateSize { continuation.resume(returning: ($0, $1)) }
        }
    }
}
