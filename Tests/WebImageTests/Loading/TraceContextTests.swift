import Foundation
import InMemoryTracing
import Testing
import Tracing
import WebImage
import WebImageTestServer
import WebImageTestSupport

/// Issue 40: a download sends its caller's trace context on to the origin, in the headers of the
/// instrument in force (here swift-distributed-tracing's `InMemoryTracer`, for this test's task
/// alone: `in-memory-trace-id`, `in-memory-span-id`; OpenTelemetry's is `traceparent`), and the
/// caller's, not that of the download whose end started it.
@Suite("Loading: trace context", .offThePool) struct TraceContextTests {
    @Test func aDownloadCarriesItsCallersContextAlsoWhenAnotherCallersEndStartsIt() async throws {
        let tracer = InMemoryTracer()
        try await withTracer(tracer) {
            try await withOrigin { origin in
                let downloader = makeDownloader { $0.maxConcurrentDownloads = 1 }
                let gate = try heldImage(origin, at: "/first.png")
                let first = Task {
                    try await withSpan("first caller") { _ in try await downloader.downloadData(with: origin.url("/first.png")) }
                }
                #expect(await origin.wait { $0.requests["/first.png"] == 1 })
                // Queued behind the first: started by the first's end, in a task of the first's making.
                let second = Task {
                    try await withSpan("second caller") { span in
                        (try await downloader.downloadData(with: origin.url("/images/sdwebimage/TestImage.png")), span.context.inMemorySpanContext)
                    }
                }
                #expect(await eventually(within: .seconds(10)) { downloader.currentDownloadCount == 2 })
                gate.open()
                _ = try await first.value
                let (_, secondContext) = try await second.value
                let firstAsked = try #require(origin.statistics.requestLog["/first.png"]?.first)
                let secondAsked = try #require(origin.statistics.requestLog["/images/sdwebimage/TestImage.png"]?.first)
                let firstSpan = try #require(tracer.finishedSpans.first { $0.operationName == "first caller" })
                #expect(firstAsked.header(InMemoryTracer.spanIDKey) == firstSpan.spanID)
                #expect(secondAsked.header(InMemoryTracer.traceIDKey) == secondContext?.traceID)
                #expect(secondAsked.header(InMemoryTracer.spanIDKey) == secondContext?.spanID)
                #expect(secondContext?.traceID != firstSpan.traceID)
            }
        }
    }

    @Test func noContextIsSentWhenTurnedOffOrWhenTheCallerHasNone() async throws {
        let tracer = InMemoryTracer()
        try await withTracer(tracer) {
            try await withOrigin { origin in
                let quiet = makeDownloader { $0.propagatesTraceContext = false }
                _ = try await withSpan("caller") { _ in try await quiet.downloadData(with: origin.url("/images/sdwebimage/TestImage.png?n=1")) }
                _ = try await makeDownloader().downloadData(with: origin.url("/images/sdwebimage/TestImage.png?n=2"))
                let asked = try #require(origin.statistics.requestLog["/images/sdwebimage/TestImage.png"])
                #expect(asked.count == 2 && asked.allSatisfy { $0.header(InMemoryTracer.traceIDKey) == nil })
                // The same caller with the default sends it: the check above can fail.
                _ = try await withSpan("caller") { _ in try await makeDownloader().downloadData(with: origin.url("/images/sdwebimage/TestImage.png?n=3")) }
                let third = try #require(origin.statistics.requestLog["/images/sdwebimage/TestImage.png"]?.last)
                #expect(third.header(InMemoryTracer.traceIDKey) != nil)
            }
        }
    }

    /// A route that sends the first half of TestImage.png at once and the rest once the returned
    /// gate opens.
    private func heldImage(_ origin: TestServer, at route: String) throws -> TestGate {
        let body = try Data(contentsOf: TestServer.imagesFolder.appendingPathComponent("sdwebimage/TestImage.png"))
        return origin.routeHeld(route, body: Array(body), type: "image/png")
    }
}
