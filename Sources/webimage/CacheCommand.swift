import ArgumentParser
import Foundation
import WebImage

struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect or empty the disk cache.",
        discussion: """
        stats: entries and bytes; clean: remove expired entries (older than a week by access) and \
        trim to the size limit; clear: remove every entry; path: print the folder. Exit status: 0, 1 when the folder \
        cannot be made or written, 64 for a usage error.
        """
    )

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case stats, clean, clear, path
    }

    @Argument(help: "stats, clean, clear or path.")
    var action: Action

    @OptionGroup var cache: CacheOptions

    func run() async throws {
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

    /// The folder's entries and bytes, counted on the cache's I/O queue (one listing, off the
    /// cooperative pool).
    private static func countedEntries(of imageCache: ImageCache) async -> (count: Int, size: Int) {
        await withCheckedContinuation { continuation in
            imageCache.calculateSize { continuation.resume(returning: ($0, $1)) }
        }
    }
}
