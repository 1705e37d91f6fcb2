import Foundation
import Testing
@testable import WebImage
import WebImageTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The bounds of a whole download (issue 22, part 2): the time without new bytes across
/// attempts, and the deadline. Alone on this machine: the silent server fails at 2.0 s, the
/// deadline cuts the trickle at 2.0 s, the trickle arrives whole in 4.6 s (docs/loading.md). The
/// upper bounds here are loose: the whole suite shares 2 cores.
@Suite("Loading: bounds of a whole download") struct DownloadBoundsTests {
    /// 10 KB in 1 KB pieces, 0.5 s apart: 4.5 s from the first piece to the last.
    static let trickle = "/bytes/10240?chunk=1024&chunkDelay=500"

    @Test func aSilentServerFailsWithinTwiceTheTimeoutWhateverTheRetries() async throws {
        try await withTestServer { server in
            // The default retries: 2, after 0.5 s and 1 s less jitter.
            let downloader = makeDownloader { $0.downloadTimeout = 1; $0.retryPolicy = DownloadRetryPolicy() }
            let path = "/images/photos/rocket.jpg"
            let (outcome, elapsed, token, _) = await downloader.timedDownload(server.url(path + "?delay=60000"))
            #expect(outcome.urlError?.code == .timedOut, "\(String(reflecting: outcome.error))")
            // The first attempt times out at 1 s, the retry starts by 1.5 s and is cut at 2 s by
            // the stall bound: a third attempt (the old 4 s) never starts.
            #expect(server.requestCount(path) == 2, "\(server.statistics.requestLog)")
            #expect(elapsed >= .seconds(2) && elapsed < .seconds(300), "\(elapsed)")
            #expect((token?.metrics.totalTime ?? 0) >= 2 && token?.metrics.retryCount == 1)
            #expect(await server.wait { $0.abortedResponses[path] == 2 })
        }
    }

    @Test func aTrickleThatKeepsDeliveringIsNeverCut() async throws {
        try await withTestServer { server in
            let downloader = makeDownloader { $0.downloadTimeout = 1 }
            let result = try await downloader.downloadData(with: server.url(Self.trickle))
            #expect(result.data == Data((0..<10240).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
            // Longer than the 2 s stall bound, in one attempt.
            #expect(result.metrics.totalTime >= 4.5 && result.metrics.retryCount == 0, "\(result.metrics)")
        }
    }

    @Test func aDeadlineCutsTheTrickleAtOnce() async throws {
        try await withTestServer { server in
            let downloader = makeDownloader { $0.downloadTimeout = 1; $0.downloadDeadline = 2 }
            let (outcome, elapsed, _, recorder) = await downloader.timedDownload(server.url(Self.trickle))
            #expect(outcome.urlError?.code == .timedOut, "\(String(reflecting: outcome.error))")
            #expect(elapsed >= .seconds(2) && elapsed < .seconds(300), "\(elapsed)")
            let received = recorder.progressReports.map(\.0).max() ?? 0
            #expect(received > 0 && received < 10240, "cut in the middle: \(received) bytes")
            #expect(await server.wait { $0.abortedResponses["/bytes/10240"] == 1 }, "the connection was closed")
        }
    }

    /// The context's deadline is this caller's: a caller sharing the download without one gets
    /// the whole body.
    @Test func aContextDeadlineFailsItsCallerAloneOnASharedDownload() async throws {
        try await withTestServer { server async throws in
            let downloader = makeDownloader { $0.downloadTimeout = 1 }
            var hurried = WebImageContext()
            hurried.downloadDeadline = 1
            let url = server.url(Self.trickle)
            let patient = Task { try await downloader.downloadData(with: url) }
            let hurriedOutcome = await downloader.recordedDownload(url, context: hurried).1.outcome()
            #expect(hurriedOutcome.urlError?.code == .timedOut, "\(String(reflecting: hurriedOutcome.error))")
            let patientData = try await patient.value.data
            #expect(patientData.count == 10240)
            #expect(server.requestCount("/bytes/10240") == 1, "one shared request")
        }
    }

    @Test func aRetryAfterPastTheStallBoundFailsAtOnce() async throws {
        try await withTestServer { server in
            // Retry-After 600 s against a 2 s stall bound: no 10-minute sleep.
            let downloader = makeDownloader { $0.downloadTimeout = 1; $0.retryPolicy = DownloadRetryPolicy(maxDelay: 600) }
            let path = "/images/photos/rocket.jpg"
            let started = ContinuousClock.now
            let outcome = await downloader.recordedDownload(server.url(path + "?failFirst=1&retryAfter=600")).1.outcome()
            #expect(outcome.webImageError == .invalidDownloadStatusCode(statusCode: 503, response: nil))
            #expect(server.requestCount(path) == 1)
            #expect(ContinuousClock.now - started < .seconds(300))
        }
    }

    @Test func aBackoffPastTheDeadlineFailsAtOnce() async throws {
        try await withTestServer { server in
            let downloader = makeDownloader {
                $0.downloadDeadline = 300
                $0.retryPolicy = DownloadRetryPolicy(baseDelay: 600, maxDelay: 600, jitter: 0)
            }
            let outcome = await downloader.recordedDownload(server.url("/status/503")).1.outcome()
            #expect(outcome.webImageError == .invalidDownloadStatusCode(statusCode: 503, response: nil))
            #expect(server.requestCount("/status/503") == 1)
        }
    }
}
