import Foundation
import InMemoryTracing
import Testing
import Tracing
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// Issue 40: a traced request is a span (Hummingbird's `TracingMiddleware`, the incoming trace
/// context honoured) whose children are its work, named as imgproxy names its OpenTelemetry
/// spans, and the origin is sent the trace on. The tracer is swift-distributed-tracing's
/// `InMemoryTracer`, set for this test's task alone (`withTracer`): nothing process-wide. It
/// carries the context in `in-memory-trace-id` and `in-memory-span-id` where OpenTelemetry's
/// carries `traceparent` (`ServeTracingTests` sends that one to `webimage serve`).
@Suite(.offThePool) struct TracingTests {
    static let incoming = ["in-memory-trace-id": "trace-client", "in-memory-span-id": "span-client"]

    @Test func aRequestsWorkIsFourSpansUnderItsOwnInTheCallersTraceAndTheOriginJoinsIt() async throws {
        let tracer = InMemoryTracer()
        try await withTracer(tracer) {
            try await withOrigin { origin in
                try await withRunningServer(.fetchingFromLoopback()) { server in
                    let source = origin.url("/images/photos/rocket.jpg").absoluteString
                    let path = "/unsafe/rs:fit:80:80/plain/\(source)@png"
                    let reply = try await server.get(path, headers: Self.incoming)
                    #expect(reply.status == 200)
                    // The request's span ends once its body is written, after the client has it.
                    #expect(await eventually(within: .seconds(10)) { tracer.finishedSpans.contains { $0.kind == .server } })
                    let spans = tracer.finishedSpans
                    let request = try #require(spans.first { $0.kind == .server }, "\(spans.map(\.operationName))")
                    #expect(request.traceID == "trace-client" && request.parentSpanID == "span-client")
                    #expect(request.attributes["imgproxy.source_image_url"]?.toSpanAttribute() == .string(source))
                    // The options in their canonical form, the result key's: every one, defaults included.
                    guard case .string(let options)? = request.attributes["imgproxy.options"]?.toSpanAttribute() else {
                        Issue.record("\(request.attributes)")
                        return
                    }
                    #expect(options.hasPrefix("resizing_type:fit/width:80/height:80/") && options.contains("/format:png/"), "\(options)")
                    #expect(request.attributes["webimage.cache"]?.toSpanAttribute() == .string("miss"))
                    let work = spans.filter { $0.parentSpanID == request.spanID }.map(\.operationName)
                    #expect(work.sorted() == ["downloading_image", "processing_image", "queue", "streaming_image"], "\(spans.map(\.operationName))")
                    #expect(spans.allSatisfy { $0.traceID == "trace-client" })
                    // The origin was asked within the download's span, of the same trace.
                    let download = try #require(spans.first { $0.operationName == "downloading_image" })
                    #expect(download.attributes["imgproxy.image_url"]?.toSpanAttribute() == .string(source))
                    let asked = try #require(origin.statistics.requestLog["/images/photos/rocket.jpg"]?.first)
                    #expect(asked.header("in-memory-trace-id") == "trace-client")
                    #expect(asked.header("in-memory-span-id") == download.spanID)

                    // The same again: a memory hit, whose only work is the write.
                    _ = tracer.popFinishedSpans()
                    #expect(try await server.get(path, headers: Self.incoming).status == 200)
                    #expect(await eventually(within: .seconds(10)) { tracer.finishedSpans.contains { $0.kind == .server } })
                    let hit = tracer.finishedSpans
                    let hitRequest = try #require(hit.first { $0.kind == .server })
                    #expect(hit.filter { $0.parentSpanID == hitRequest.spanID }.map(\.operationName) == ["streaming_image"])
                    #expect(hitRequest.attributes["webimage.cache"]?.toSpanAttribute() == .string("memory"))
                }
            }
        }
    }

    /// `OPEN_TELEMETRY_PROPAGATE_EXTERNAL` and `OPEN_TELEMETRY_ENABLE` are read under imgproxy's
    /// names; with propagation off the origin is sent no context, the spans still made.
    @Test func propagationOffSendsTheOriginNoContext() async throws {
        let read = try await ImageServerConfiguration.load(
            arguments: ["test"], environment: ["IMGPROXY_OPEN_TELEMETRY_PROPAGATE_EXTERNAL": "false", "IMGPROXY_OPEN_TELEMETRY_ENABLE": "true"]
        )
        #expect(!read.propagatesTraceContext && read.exportsTraces)
        #expect(ImageServer.makeDownloaderConfig(configuration: read).propagatesTraceContext == false)
        let defaults = try await ImageServerConfiguration.load(arguments: ["test"], environment: [:])
        #expect(defaults.propagatesTraceContext && !defaults.exportsTraces)
        let tracer = InMemoryTracer()
        try await withTracer(tracer) {
            try await withOrigin { origin in
                try await withRunningServer(.fetchingFromLoopback { $0.propagatesTraceContext = false }) { server in
                    let reply = try await server.get("/unsafe/rs:fit:30:30/plain/\(origin.url("/images/photos/rocket.jpg"))", headers: Self.incoming)
                    #expect(reply.status == 200)
                    #expect(await eventually(within: .seconds(10)) { tracer.finishedSpans.contains { $0.operationName == "downloading_image" } })
                    let asked = try #require(origin.statistics.requestLog["/images/photos/rocket.jpg"]?.first)
                    #expect(asked.header(InMemoryTracer.traceIDKey) == nil && asked.header(InMemoryTracer.spanIDKey) == nil)
                }
            }
        }
    }

    /// An S3 source's request carries the download's context too (after the signature, which
    /// does not cover it): the endpoint here is the test server, path-style, unsigned.
    @Test func anS3SourceIsSentTheDownloadsContext() async throws {
        let tracer = InMemoryTracer()
        try await withTracer(tracer) {
            try await withOrigin { origin in
                let configuration = ImageServerConfiguration.fetchingFromLoopback {
                    $0.usesS3 = true
                    $0.s3.endpoint = origin.url("/").absoluteString
                }
                try await withRunningServer(configuration) { server in
                    let reply = try await server.get("/unsafe/rs:fit:40:40/plain/s3://images/photos/rocket.jpg", headers: Self.incoming)
                    #expect(reply.status == 200)
                    #expect(await eventually(within: .seconds(10)) { tracer.finishedSpans.contains { $0.kind == .server } })
                    let download = try #require(tracer.finishedSpans.first { $0.operationName == "downloading_image" })
                    #expect(download.attributes["imgproxy.image_origin"]?.toSpanAttribute() == .string("s3://images"))
                    let asked = try #require(origin.statistics.requestLog["/images/photos/rocket.jpg"]?.first)
                    #expect(asked.header(InMemoryTracer.traceIDKey) == "trace-client" && asked.header(InMemoryTracer.spanIDKey) == download.spanID)
                }
            }
        }
    }

    /// A job the full queue refuses (429) says so on its `queue` span, the child of its request's.
    @Test func aFullQueueIsAnErrorOnTheQueueSpan() async throws {
        let tracer = InMemoryTracer()
        try await withTracer(tracer) {
            let (slots, changes) = WorkerSlotsTests.observedSlots(workers: 1, queueSize: 1)
            let gate = TestGate()
            let first = Task { try await slots.withSlot { await gate.wait() } }
            #expect(await eventually(within: TestAllowance.eventWait, on: changes) { slots.busy == 1 })
            let second = Task { try await slots.withSlot {} }
            #expect(await eventually(within: TestAllowance.eventWait, on: changes) { slots.queued == 1 })
            await #expect(throws: ImageServerError.tooManyRequests) {
                try await withSpan("request", ofKind: .server) { _ in try await slots.withSlot {} }
            }
            gate.open()
            try await first.value
            try await second.value
        }
        let request = try #require(tracer.finishedSpans.first { $0.operationName == "request" })
        let queue = try #require(tracer.finishedSpans.first { $0.parentSpanID == request.spanID })
        #expect(queue.operationName == "queue" && queue.errors.count == 1, "\(queue)")
    }
}
