import ArgumentParser
import Logging
// scripts/tsan-check.sh's build has no swift-otel (Package.swift says why).
#if !WEBIMAGE_TSAN
import OTel
#endif
import ServiceLifecycle
import Tracing
import WebImageServer

/// `webimage serve`'s traces, exported over OTLP/HTTP by swift-otel, which reads the
/// OpenTelemetry SDK's variables itself (`OTEL_SERVICE_NAME`, `OTEL_EXPORTER_OTLP_ENDPOINT`,
/// `OTEL_TRACES_SAMPLER`, `OTEL_BSP_SCHEDULE_DELAY`, …).
enum ServeTracing {
    /// The variables that turn the export on, as imgproxy's `OPEN_TELEMETRY_ENABLE` does.
    static let endpointVariables = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]

    /// With `OPEN_TELEMETRY_ENABLE` or an OTLP endpoint in `environment` (and the SDK not turned
    /// off by `OTEL_SDK_DISABLED`), bootstraps the process's tracer, the one process-wide
    /// bootstrap of tracing, here in the command as the logger's is, and returns the exporter's
    /// service for the server's group; else none. A setting the exporter cannot take stops the
    /// start, as a server setting does.
    static func bootstrap(
        configuration: ImageServerConfiguration, environment: [String: String], logger: Logger
    ) throws -> [any Service] {
        let endpointSet = endpointVariables.contains { !(environment[$0] ?? "").isEmpty }
        guard configuration.exportsTraces || endpointSet, environment["OTEL_SDK_DISABLED"]?.lowercased() != "true" else { return [] }
        // OTLP over gRPC is not built in (swift-otel's gRPC trait would build grpc-swift), and
        // swift-otel stops the process when asked for it: refused here, by name.
        for name in ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"] {
            guard let value = environment[name], !value.isEmpty else { continue }
            if value.lowercased() == "grpc" {
                throw ValidationError("\(name)=grpc: traces are exported over OTLP/HTTP only (http/protobuf, the default, or http/json)")
            }
            break
        }
        #if !WEBIMAGE_TSAN
        var otel = OTel.Configuration.default
        // imgproxy's default is "imgproxy"; OTEL_SERVICE_NAME overrides either.
        otel.serviceName = "webimage"
        otel.diagnosticLogger = .custom(logger)
        otel.metrics.enabled = false
        otel.logs.enabled = false
        do {
            let backend = try OTel.makeTracingBackend(configuration: otel)
            InstrumentationSystem.bootstrap(backend.factory)
            return [backend.service]
        } catch {
            throw ValidationError("the trace exporter cannot start: \(error)")
        }
        #else
        throw ValidationError("this webimage has no trace exporter (built without swift-otel: scripts/tsan-check.sh's build)")
        #endif
    }
}
