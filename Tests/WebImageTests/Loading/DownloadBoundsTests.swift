import Foundation
import Testing
@testable import WebImage
import WebImageTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
import WebImageTestSupport
#endif

/// The bounds of a whole download (issue 22, parts 2 and 3): the time without new bytes across
/// attempts, the deadline, and resumes that make progress. Alone on this machine: the silent
/// server fails at 2.05 s, the deadline cuts the trickle at 2.0 s, the trickle arrives whole in
/// 5.5 s, the body cut every 20 KB arrives in 16 requests in about 0.5 s (figures in
/// docs/loading.md). The upper bounds are hang guards (`TestAllowance.hangBound`): the counts of
/// requests and retries bound the work.
@Suite("Loading: bounds of a whole download", .offThePool) struct DownloadBoundsTests {
    /// TestImage.png (11,662 bytes) in 1 KB pieces, 0.5 s apart: 5.5 s from the first piece to
    /// the last. The route has a strong ETag and ranges, so an attempt cut by its own 1 s idle
    /// timeout on a starved machine resumes instead of failing the test.
    static let trickle = "/images/sdwebimage/TestImage.png?chunk=1024&chunkDelay=500"
    static let tricklePath = "/images/sdwebimage/TestImage.png"

    @Test func aSilentServerFailsWithinTwiceTheTimeoutWhateverTheRetries() async throws {
        try await withOrigin { server in
            // The default retries: 2, after 0.5 s and 1 s less jitter.
            let downloader = makeDownloader { $0.downloadTimeout = 1; $0.retryPolicy = DownloadRetryPolicy() }
            let path = "/images/photos/rocket.jpg"
            let (outcome, elapsed, token, _) = await downloader.timedDownload(server.url(path + "?delay=60000"))
            #expect(outcome.urlError?.code == .timedOut, "\(String(reflecting: outcome.error))")
            // The first attempt times out at 1 s, the retry starts by 1.5 s and is cut at 2 s by
            // the stall bound: a third attempt (the old 4 s) never starts. (Alone: 2 requests; on
            // a loaded machine the retry may be cut before its request reaches the server.)
            #expect(server.requestCount(path) <= 2 && (token?.metrics.retryCount ?? 9) <= 1, "\(server.statistics.requestLog)")
            #expect(elapsed >= .seconds(1) && elapsed < TestAllowance.hangBound(.seconds(2)), "\(elapsed)")
            // At least the first attempt's timeout; a retry whose wait would end past 2 s is not made.
            #expect((token?.metrics.totalTime ?? 0) >= 1)
            #expect(await server.wait { $0.requests[path] == $0.abortedResponses[path] }, "every request closed unanswered")
        }
    }

    @Test func aTrickleThatKeepsDeliveringIsNeverCut() async throws {
        try await withOrigin { server in
            // A 4 s stall bound: pieces 0.5 s apart leave room for a starved test server (with
            // 2 s, the whole suite's first minutes on 2 cores cut it).
            let downloader = makeDownloader { $0.downloadTimeout = TestAllowance.seconds(2) }
            let result = try await downloader.downloadData(with: server.url(Self.trickle))
            #expect(result.data == (try TestImages.data("sdwebimage/TestImage.png")))
            // Longer than the 4 s stall bound, and never retried.
            #expect(result.metrics.totalTime >= 5 && result.metrics.retryCount == 0, "\(result.metrics)")
        }
    }

    @Test func aDeadlineCutsTheTrickleAtOnce() async throws {
        try await withOrigin { server in
            let downloader = makeDownloader { $0.downloadTimeout = 1; $0.downloadDeadline = 2 }
            let (outcome, elapsed, _, recorder) = await downloader.timedDownload(server.url(Self.trickle))
            #expect(outcome.urlError?.code == .timedOut, "\(String(reflecting: outcome.error))")
            #expect(elapsed >= .seconds(2) && elapsed < TestAllowance.hangBound(.seconds(2)), "\(elapsed)")
            let received = recorder.progressReports.map(\.0).max() ?? 0
            #expect(received < 11662, "cut before the end: \(received) bytes")
            #expect(await server.wait { $0.abortedResponses[Self.tricklePath] == $0.requests[Self.tricklePath] }, "the connection was closed")
        }
    }

    /// The context's deadline is this caller's: a caller sharing the download without one gets
    /// the whole body.
    @Test func aContextDeadlineFailsItsCallerAloneOnASharedDownload() async throws {
        try await withOrigin { server async throws in
            let downloader = makeDownloader { $0.downloadTimeout = TestAllowance.seconds(2) }  // the patient's stall bound: 4 s
            var hurried = WebImageContext()
            hurried.downloadDeadline = 1
            let url = server.url(Self.trickle)
            let patient = Task { try await downloader.downloadData(with: url) }
            let hurriedOutcome = await downloader.recordedDownload(url, context: hurried).1.outcome()
            #expect(hurriedOutcome.urlError?.code == .timedOut, "\(String(reflecting: hurriedOutcome.error))")
            let patientData = try await patient.value.data
            #expect(patientData.count == 11662)
            let fresh = server.statistics.requestLog[Self.tricklePath]?.filter { $0.header("Range") == nil }
            #expect(fresh?.count == 1, "one shared request (and its resumes, if any)")
        }
    }

    @Test func aRetryAfterPastTheStallBoundFailsAtOnce() async throws {
        try await withOrigin { server in
            // Retry-After 600 s against a 2 s stall bound: no 10-minute sleep.
            let downloader = makeDownloader { $0.downloadTimeout = TestAllowance.seconds(1); $0.retryPolicy = DownloadRetryPolicy(maxDelay: 600) }
            let path = "/images/photos/rocket.jpg"
            let started = ContinuousClock.now
            let outcome = await downloader.recordedDownload(server.url(path + "?failFirst=1&retryAfter=600")).1.outcome()
            #expect(outcome.webImageError == .invalidDownloadStatusCode(statusCode: 503, response: nil))
            #expect(server.requestCount(path) == 1)
            #expect(ContinuousClock.now - started < TestAllowance.hangBound(.zero))
        }
    }

    @Test func aBackoffPastTheDeadlineFailsAtOnce() async throws {
        try await withOrigin { server in
            let downloader = makeDownloader {
                $0.downloadDeadline = 300
                $0.retryPolicy = DownloadRetryPolicy(baseDelay: 600, maxDelay: 600, jitter: 0)
            }
            let outcome = await downloader.recordedDownload(server.url("/status/503")).1.outcome()
            #expect(outcome.webImageError == .invalidDownloadStatusCode(statusCode: 503, response: nil))
            #expect(server.requestCount("/status/503") == 1)
        }
    }

    /// Issue 22, part 3: with a strong ETag and `Accept-Ranges`, each cut brought new bytes, so
    /// each resume is progress: no retry spent, no backoff waited.
    @Test func aBodyCutEvery20KBArrivesWholeWithTheDefaultSettings() async throws {
        try await withOrigin { server in
            let original = try TestImages.data("sdwebimage/TestImageLarge.png")   // 313,855 bytes
            let path = "/images/sdwebimage/TestImageLarge.png"
            let downloader = ImageDownloader(config: .default)
            let result = try await downloader.downloadImage(with: server.url(path + "?dropEvery=20000"))
            #expect(result.data == original)
            #expect(result.image.pixelWidth > 0)
            let pieces = (original.count + 19_999) / 20_000
            #expect(result.metrics.resumeCount == pieces - 1 && result.metrics.retryCount == 0, "\(result.metrics)")
            #expect(server.requestCount(path) == pieces)
        }
    }

    @Test func resumesBeyondTheirBudgetAreRetries() async throws {
        try await withOrigin { server in
            let path = "/images/sdwebimage/TestImageLarge.png"
            let downloader = makeDownloader { $0.retryPolicy = DownloadRetryPolicy(maxRetryCount: 2, baseDelay: 0.01, jitter: 0, maxResumeCount: 3) }
            let outcome = await downloader.recordedDownload(server.url(path + "?dropEvery=20000")).1.outcome()
            #expect(outcome.urlError?.code == .networkConnectionLost, "\(String(reflecting: outcome.error))")
            // 1 + 3 resumes + 2 retries.
            #expect(server.requestCount(path) == 6)
        }
    }
}
