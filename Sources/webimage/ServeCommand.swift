import ArgumentParser
import Foundation
internal import ImageEngine
import Logging
import WebImageServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve images over HTTP by imgproxy's URLs: fetched, processed, cached.",
        discussion: """
            Settings come from flags (--bind 127.0.0.1:8080, --max-src-resolution 40, ...), else \
            environment variables (imgproxy's names, under its prefix or this server's: \
            \(ImageServerConfiguration.variables(of: \.processing.maxSourceResolution))), else the JSON file named by --config; \
            docs/server-settings.md lists them all. With none, it listens on 127.0.0.1:8080, caches in the \
            library's cache folder and takes unsigned URLs; it refuses an address other machines \
            reach without keys and salts (\(ImageServerConfiguration.variables(of: \.keys)), \(ImageServerConfiguration.variables(of: \.salts))) \
            unless --allow-unsigned is given. SIGTERM or SIGINT drains the requests in flight, then \
            exits 0. Example: webimage serve --local-filesystem-root Tests/Images, then \
            curl -o thumb.jpg http://127.0.0.1:8080/unsafe/rs:fill:300:200/plain/local:///photos/rocket.jpg
            """
    )

    @Argument(parsing: .allUnrecognized, help: "Settings as flags: --bind HOST:PORT, --workers N, ... (docs/server-settings.md).")
    var settings: [String] = []

    func run() async throws {
        MallocArenas.limit(to: 2)
        let configuration: ImageServerConfiguration
        let parser: ImgproxyURLParser
        do {
            configuration = try await ImageServerConfiguration.load(arguments: ["webimage"] + settings)
            if let refusal = configuration.refusalToStart { throw refusal }
            parser = try configuration.makeParser()
        } catch let error as ImageServerConfigurationError {
            throw ValidationError("\n" + error.description)
        }
        // Every line of the process, the library's too, in the configured form and level.
        LoggingSystem.bootstrap(ImageServerLogHandler.factory(format: configuration.logFormat, level: configuration.logLevel))
        let logger = Logger(label: "swift-webimage.server")
        // The lines of the last tenth of a second wait for their batch, and their writer ends.
        do {
            let tracing = try ServeTracing.bootstrap(configuration: configuration, environment: ProcessInfo.processInfo.environment, logger: logger)
            try await ImageServer.run(configuration: configuration, parser: parser, logger: logger, services: tracing)
        } catch {
            await ImageServerLogHandler.shutdown()
            throw error
        }
        await ImageServerLogHandler.shutdown()
    }
}
