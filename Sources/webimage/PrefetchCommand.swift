import ArgumentParser
import Foundation
import WebImage

struct PrefetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Fetch images into the disk cache, three at a time.",
        discussion: "Exit status: 0 when every image loaded, 1 when one failed, 64 for a usage error."
    )

    @Argument(help: "Image URLs or file paths.")
    var urls: [String] = []

    @Option(help: "Read more URLs from FILE, one a line (blank lines and # comments skipped).")
    var fromFile: String?

    @Option(help: "Loads at once.")
    var concurrency = 3

    @OptionGroup var cache: CacheOptions

    func run() async throws {
        var arguments = urls
        if let fromFile {
            guard let text = try? await BlockingPool.run({ try String(contentsOfFile: fromFile, encoding: .utf8) }) else {
                throw ValidationError("cannot read \(fromFile)")
            }
            arguments += text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        }
        guard !arguments.isEmpty else { throw ValidationError("give URLs or --from-file") }
        guard concurrency > 0 else { throw ValidationError("--concurrency takes 1 or more") }
        let list = try arguments.map(URLArgument.url)
        let prefetcher = ImagePrefetcher(imageManager: WebImageManager(cache: cache.makeCache(), loader: ImageLoadersManager.shared))
        prefetcher.maxConcurrentPrefetchCount = concurrency
        prefetcher.prefetchesToDiskOnly = true
        prefetcher.options = [.lowPriority, .waitStoreCache]
        let terminal = isatty(STDOUT_FILENO) == 1
        let started = ContinuousClock.now
        let (finished, skipped) = await prefetcher.prefetchURLs(list) { done, total in
            if terminal {
                let bar = "\r" + BatchProgress.bar(done: done, total: total, elapsed: ContinuousClock.now - started) + "\u{1B}[K"
                FileHandle.standardOutput.write(Data((bar + (done == total ? "\n" : "")).utf8))
            } else {
                print("\(done)/\(total)")
            }
        }
        let seconds = BatchProgress.seconds(ContinuousClock.now - started)
        print("prefetched \(finished) of \(list.count), \(skipped) failed, in \(String(format: "%.2f", seconds)) s into \(cache.makeCache().diskCachePath)")
        if skipped > 0 { throw ExitCode.failure }
    }
}
