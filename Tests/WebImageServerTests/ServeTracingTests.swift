import Foundation
import Glibc
import Testing
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

// Not in scripts/tsan-check.sh's build, whose `webimage` has no exporter (Package.swift says why).
#if !WEBIMAGE_TSAN
/// Issue 40: `webimage serve` exports its traces over OTLP/HTTP to a real receiver (PyPI's
/// `opentelemetry-proto` decoding them: `OTLPReceiver`), continuing the trace of an incoming W3C
/// `traceparent` and sending it on to the origin.
@Suite(.offThePool) struct ServeTracingTests {
    static let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let callerSpanID = "00f067aa0ba902b7"
    static let traceparent = "00-\(traceID)-\(callerSpanID)-01"

    @Test func aRequestsSpansReachTheReceiverInTheCallersTraceAndTheOriginJoinsIt() async throws {
        try await withOTLPReceiver { receiver in
            try await withOrigin { origin in
                let environment = [
                    "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "OTEL_SERVICE_NAME": "webimage-test",
                    // A batch every 50 ms, not every 5 s.
                    "OTEL_BSP_SCHEDULE_DELAY": "50",
                ]
                try await withServeProcess(["--allow-loopback-source-addresses"], environment: environment) { server in
                    let source = origin.url("/images/photos/rocket.jpg").absoluteString
                    let reply = try await ServerUnderTest.get("/unsafe/rs:fit:64:64/plain/\(source)", port: server.port, headers: ["traceparent": Self.traceparent])
                    #expect(reply.status == 200)
                    #expect(await eventually(within: .seconds(30), every: .milliseconds(20)) {
                        receiver.spans.filter { $0.traceID == Self.traceID }.count >= 5
                    })
                    let spans = receiver.spans.filter { $0.traceID == Self.traceID }
                    let request = try #require(spans.first { $0.kind == 2 }, "\(spans)")
                    #expect(request.parentSpanID == Self.callerSpanID && request.name == "/**")
                    #expect(request.service == "webimage-test" && request.path == "/v1/traces" && request.contentType == "application/x-protobuf")
                    #expect(request.attributes["imgproxy.source_image_url"] == source)
                    let work = spans.filter { $0.parentSpanID == request.spanID }
                    #expect(work.map(\.name).sorted() == ["downloading_image", "processing_image", "queue", "streaming_image"], "\(spans.map(\.name))")
                    let download = try #require(work.first { $0.name == "downloading_image" })
                    let asked = try #require(origin.statistics.requestLog["/images/photos/rocket.jpg"]?.first)
                    #expect(asked.header("traceparent") == "00-\(Self.traceID)-\(download.spanID)-01")
                }
            }
        }
    }

    /// A `traceparent` a client made up (not W3C's form, a zero trace ID, an unknown version
    /// with bad fields) starts a trace of the server's own: the request is answered as any other.
    @Test(arguments: ["nonsense", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "ff-\(String(repeating: "g", count: 32))-zz-01", String(repeating: "0-", count: 2_000)])
    func aMalformedTraceparentStartsATraceOfItsOwn(traceparent: String) async throws {
        try await withOTLPReceiver { receiver in
            let environment = ["OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "OTEL_BSP_SCHEDULE_DELAY": "50"]
            try await withServeProcess([], environment: environment) { server in
                let reply = try await ServerUnderTest.get("/health", port: server.port, headers: ["traceparent": traceparent])
                #expect(reply.status == 200)
                #expect(await eventually(within: .seconds(30), every: .milliseconds(20)) { receiver.spans.contains { $0.kind == 2 } })
                let request = try #require(receiver.spans.first { $0.kind == 2 })
                #expect(request.parentSpanID.isEmpty && request.traceID.count == 32 && request.traceID != String(repeating: "0", count: 32))
            }
        }
    }

    /// At SIGTERM the exporter stops after the server: the last request's spans are sent then,
    /// though the next batch was an hour away.
    @Test func theLastRequestsSpansAreSentAtShutdown() async throws {
        try await withOTLPReceiver { receiver in
            let environment = ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": receiver.endpoint + "/v1/traces", "OTEL_BSP_SCHEDULE_DELAY": "3600000"]
            try await withServeProcess([], environment: environment) { server in
                let reply = try await ServerUnderTest.get("/health", port: server.port, headers: ["traceparent": Self.traceparent])
                #expect(reply.status == 200)
                #expect(receiver.spans.isEmpty)
                server.signal(SIGTERM)
                #expect(await server.exitStatus() == 0)
                #expect(receiver.spans.contains { $0.traceID == Self.traceID && $0.kind == 2 }, "\(receiver.spans)")
            }
        }
    }

    /// OTLP over gRPC is not built in: asked for, the start stops, naming the variable. The
    /// SDK turned off (`OTEL_SDK_DISABLED`) exports nothing, an endpoint set or not.
    @Test func gRPCIsRefusedByNameAndATurnedOffSDKExportsNothing() async throws {
        let folder = FileManager.default.temporaryDirectory
        let refused = try await ServeProcess.run(
            ["serve", "--bind", "127.0.0.1:0"], in: folder,
            environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"]
        )
        #expect(refused.status == 64 && refused.standardError.contains("OTEL_EXPORTER_OTLP_PROTOCOL=grpc"), "\(refused.standardError)")
        try await withOTLPReceiver { receiver in
            let environment = ["OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "OTEL_BSP_SCHEDULE_DELAY": "50", "OTEL_SDK_DISABLED": "true"]
            try await withServeProcess([], environment: environment) { server in
                let reply = try await ServerUnderTest.get("/health", port: server.port, headers: ["traceparent": Self.traceparent])
                #expect(reply.status == 200)
                server.signal(SIGTERM)
                #expect(await server.exitStatus() == 0)
            }
            #expect(receiver.spans.isEmpty)
        }
    }
}
#endif
