import Foundation
import Instrumentation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The caller's trace context as request headers, in the format of the instrument in force (the
/// task's, else the process's): W3C `traceparent` with an OpenTelemetry tracer.
enum TraceHeaders {
    /// Adds the current task's `ServiceContext`, when it has one, to `request`'s headers.
    static func inject(into request: inout URLRequest) {
        guard let context = ServiceContext.current else { return }
        var fields: [String: String] = [:]
        InstrumentationSystem.instrument.inject(context, into: &fields, using: FieldsInjector())
        for (name, value) in fields { request.setValue(value, forHTTPHeaderField: name) }
    }

    private struct FieldsInjector: Injector {
        func inject(_ value: String, forKey key: String, into fields: inout [String: String]) {
            fields[key] = value
        }
    }
}
