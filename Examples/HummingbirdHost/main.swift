// A Hummingbird application that keeps its own logging, metrics and tracing and mounts the image
// server under /img beside a route of its own: the shape docs/server.md's "Mounting" describes,
// run by the mounting tests (HostApplicationTests) as a child process, as a host runs it.
// The server's settings come from the environment as `webimage serve` reads them (WEBIMAGE_* or
// IMGPROXY_*). It listens on 127.0.0.1, on the port given as its argument (0: one the system
// picks), says where on standard output, and stops cleanly at SIGTERM or SIGINT.
import Foundation
import Hummingbird
import InMemoryTracing
import Logging
import Metrics
import Prometheus
import ServiceLifecycle
import Tracing
import WebImageServer

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

let router = Router(context: ImageServerContext.self)
router.add(middleware: TracingMiddleware())                   // each request a span, continuing a traceparent
router.get("hello") { _, _ in "hello from the host\n" }
router.get("host/metrics") { _, _ in registry.emitToString() }
router.get("host/spans") { _, _ in
    tracer.finishedSpans.map { [$0.operationName, $0.traceID, $0.spanID, $0.parentSpanID ?? "-"].joined(separator: "\t") }.joined(separator: "\n") + "\n"
}
images.addRoutes(to: router.group("img"))                     // GET /img/{signature}/{options}/{source}, /img/health

let port = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 0
let application = Application(
    router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port)),
    services: [images],                                       // its threads end after the last request
    onServerRunning: { channel in
        FileHandle.standardOutput.write(Data("host: listening on http://127.0.0.1:\(channel.localAddress?.port ?? port)\n".utf8))
    },
    logger: logger
)
try await application.runService()
logger.info("host: stopped")
