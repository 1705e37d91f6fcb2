import ArgumentParser
import Foundation
import WebImage

/// The cache a command uses: `--namespace` under `--cache-dir` (default: the library's folder,
/// `$XDG_CACHE_HOME/swift-webimage` or `~/.cache/swift-webimage`).
struct CacheOptions: ParsableArguments {
    @Option(help: "The cache namespace (a folder under the cache directory).")
    var namespace = "default"

    @Option(help: "The cache directory (default: $XDG_CACHE_HOME/swift-webimage or ~/.cache/swift-webimage).")
    var cacheDir: String?

    func makeCache() -> ImageCache {
        ImageCache(namespace: namespace, diskCacheDirectory: cacheDir)
    }
}

/// A command-line URL argument: an http(s), file or data URL, or a path.
enum URLArgument {
    static func url(_ argument: String) throws -> URL {
        let lowercased = argument.lowercased()
        for scheme in ["http://", "https://", "file://", "data:"] where lowercased.hasPrefix(scheme) {
            guard let url = URL(string: argument) else { throw ValidationError("\(argument): not a valid URL") }
            return url
        }
        return URL(fileURLWithPath: argument)
    }

    /// A load's failure in words: transport errors by what happened, the others by their description.
    static func describe(_ error: any Error) -> String {
        if let error = error as? URLError { return InputFile.describe(error) }
        return (error as? LocalizedError)?.errorDescription ?? "\(error)"
    }
}
