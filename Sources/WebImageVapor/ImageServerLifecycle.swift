import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle
import Vapor
import WebImageServerCore

/// Starts the image server's service with a Vapor application and stops it with it
/// (`app.lifecycle.use(ImageServerLifecycle(server: images))`): once the application has booted
/// the server runs in a service group of its own; at the application's shutdown the server
/// awaits its disk writes and ends its threads, and the shutdown waits for it. Vapor calls
/// handlers before it stops its HTTP server, so this stops the HTTP server first (it finishes
/// the requests in flight, within its `shutdownTimeout`; Vapor's own later stop is then a no-op):
/// no request reaches the server after its threads have ended.
public struct ImageServerLifecycle: LifecycleHandler {
    public let server: ImageServer
    private let running = NIOLockedValueBox<(group: ServiceGroup, task: Task<Void, any Error>)?>(nil)

    public init(server: ImageServer) {
        self.server = server
    }

    public func didBootAsync(_ application: Application) async throws {
        // What the server needs before it answers (a watermark from a URL): a failure stops the boot.
        try await server.prepare()
        let group = ServiceGroup(services: [server], gracefulShutdownSignals: [], cancellationSignals: [], logger: application.logger)
        let task = Task { try await group.run() }
        running.withLockedValue { $0 = (group, task) }
    }

    public func shutdownAsync(_ application: Application) async {
        guard let (group, task) = running.withLockedValue({ running in defer { running = nil }; return running }) else { return }
        await application.server.shutdown()
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}
