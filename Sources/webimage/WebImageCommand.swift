import ArgumentParser
import Foundation
import Logging
import WebImage
import WebImageServer

@main
struct WebImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webimage",
        abstract: "Decode, inspect and convert images with swift-webimage.",
        discussion: """
            The library's log goes to stderr at the server's log level setting \
            (\(ImageServerConfiguration.variables(of: \.logLevel)): \
            trace, debug, info, notice, warning, error, critical); these commands' default is error, \
            as each reports its own failures, `serve`'s is info.
            """,
        subcommands: [InfoCommand.self, ConvertCommand.self, FramesCommand.self, FetchCommand.self, PrefetchCommand.self, CacheCommand.self, SignCommand.self, ServeCommand.self]
    )

    /// The library's log at the server's log level setting (errors only by default: each command
    /// reports its failures itself, one line each), then the command.
    static func main() async {
        // `serve` sets up its own log once its settings are read (LOG_FORMAT, LOG_LEVEL).
        if CommandLine.arguments.dropFirst().first != "serve" {
            var quiet = ImageServerConfiguration()
            quiet.logLevel = .error
            let level: Logger.Level
            do {
                level = try ImageServerConfiguration.reading([\.logLevel], over: quiet).logLevel
            } catch {
                FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
                Foundation.exit(EX_USAGE)
            }
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
