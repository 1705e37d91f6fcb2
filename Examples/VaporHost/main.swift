// A Vapor application that keeps its own logging, metrics and tracing and mounts the image
// server under /img beside a route of its own: the shape the README's Vapor lines describe, run
// by the mounting tests (HostApplicationTests) as a child process, as a host runs it. The
// server's settings come from the environment as `webimage serve` reads them (WEBIMAGE_* or
// IMGPROXY_*). It listens on 127.0.0.1, on the port given as its argument (0: one the system
// picks), says where on standard output, and stops cleanly at SIGTERM or SIGINT.
import Foundation
import InMemoryTracing
import Logging
import Metrics
import Prometheus
import Tracing
import Vapor
import WebImageVapor

// The host's own systems, bootstrapped once, as an application's main does: the server takes
// them as they are and bootstraps none.
LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = .info
    return handler
}
let registry = PrometheusCollectorRegistry()
MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
let tracer = InMemoryTracer()
InstrumentationSystem.bootstrap(tracer)
let logger = Logger(label: "host")

let configuration: ImageServerConfiguration
do {
    configuration = try await ImageServerConfiguration.load(arguments: ["host"])
} catch {
    logger.error("the image server's settings: \(error)")
    exit(64)
}
let images = try ImageServer(configuration: configuration)   // counts on the host's MetricsSystem

let port = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 0
let app = try await Application.make(Environment(name: "production", arguments: ["host", "serve", "--hostname", "127.0.0.1", "--port", "\(port)"]))
app.middleware.use(TracingMiddleware(), at: .beginning)      // each request a span
app.get("hello") { _ in "hello from the host\n" }
app.get("host", "metrics") { _ in registry.emitToString() }
app.get("host", "spans") { _ in
    tracer.finishedSpans.map { [$0.operationName, $0.traceID, $0.spanID, $0.parentSpanID ?? "-"].joined(separator: "\t") }.joined(separator: "\n") + "\n"
}
try app.grouped("img").register(collection: ImageRoutes(server: images))   // GET /img/{signature}/{options}/{source}, /img/health
app.lifecycle.use(ImageServerLifecycle(server: images))                     // its threads end at the application's shutdown

do {
    try await app.startup()
    FileHandle.standardOutput.write(Data("host: listening on http://127.0.0.1:\(app.http.server.shared.localAddress?.port ?? port)\n".utf8))
    try await app.running?.onStop.get()
    try await app.asyncShutdown()
} catch {
    try? await app.asyncShutdown()
    throw error
}
logger.info("host: stopped")
