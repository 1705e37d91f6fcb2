import ServiceLifecycle

extension ImageServer: Service {
    /// Runs until the application stops; then awaits the disk writes begun and ends the server's
    /// threads (the disk stores', the health check's) and the shared result store's connections,
    /// so that none outlives the application.
    /// It must stop after the HTTP server that serves it (services stop in the reverse of their
    /// order): `run` and `makeApplication` put it there; a Hummingbird application that mounts it
    /// passes it in `services:` (`Application(router:services:)`), which run before its server and
    /// stop after it; a Vapor application uses WebImageVapor's `ImageServerLifecycle`.
    public func run() async {
        try? await gracefulShutdown()
        await finishWrites()
        await results.shutdown()
        await diskThreads.shutdown()
        await healthCheck.shutdown()
    }
}
