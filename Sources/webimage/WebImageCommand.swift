import ArgumentParser
import Foundation
import Logging
import WebImage

@main
struct WebImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webimage",
        abstract: "Decode, inspect and convert images with swift-webimage.",
        discussion: "The library's log goes to stderr at level WEBIMAGE_LOG_LEVEL (default: error; trace, debug, info, notice, warning).",
        subcommands: [InfoCommand.self, ConvertCommand.self, FramesCommand.self, FetchCommand.self, PrefetchCommand.self, CacheCommand.self, SignCommand.self, ServeCommand.self]
    )

    /// The library's log at `WEBIMAGE_LOG_LEVEL` (errors only by default: each command reports
    /// its failures itself, one line each), then the command.
    static func main() async {
        // `serve` sets up its own log once its settings are read (LOG_FORMAT, LOG_LEVEL); the
        // other commands report their own failures.
        if CommandLine.arguments.dropFirst().first != "serve" {
            let level = ProcessInfo.processInfo.environment["WEBIMAGE_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .error
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        }
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
