import Foundation
import ImageEngine
import Testing
import WebImage
import WebImageTestServer
import WebImageTestSupport

@Suite("Loading: download queue", .offThePool) struct DownloadQueueTests {
    /// Starts `first` (which holds the only slot until its gate opens), then queues `count` more,
    /// and returns the order in which the queued ones reached the origin: their start order, one
    /// at a time. (Not the order their completions ran: those are decoded after the slot is
    /// freed, so on a busy machine one can complete after the next one's.)
    private func completionOrder(
        order: DownloadExecutionOrder, count: Int, options: (Int) -> DownloaderOptions = { _ in [] }
    ) async throws -> [Int] {
        try await withOrigin { server in
            let downloader = makeDownloader { $0.maxConcurrentDownloads = 1; $0.executionOrder = order }
            // Held by a gate, not a delay: on a busy machine a delay could end before every
            // download below is queued, and the queue would start them in arrival order.
            let body = try Data(contentsOf: TestServer.imagesFolder.appendingPathComponent("sdwebimage/TestImage.gif"))
            let gate = server.routeHeld("/held.gif", body: Array(body), type: "image/gif")
            let first = downloader.recordedDownload(server.url("/held.gif")).1
            #expect(await server.wait { $0.requests["/held.gif"] == 1 })
            let recorders = (0..<count).map { index in
                let recorder = DownloadRecorder()
                downloader.downloadImage(
                    with: server.url("/images/sdwebimage/TestImage.png?n=\(index)"), options: options(index), completed: recorder.completion)
                return recorder
            }
            #expect(downloader.currentDownloadCount == count + 1)
            gate.open()
            #expect(await first.outcome().image != nil)
            for recorder in recorders { #expect(await recorder.outcome().image != nil) }
            return (server.statistics.requestLog["/images/sdwebimage/TestImage.png"] ?? []).compactMap { $0.query["n"].flatMap { Int($0) } }
        }
    }

    @Test func lifoStartsTheNewestWaitingDownloadFirst() async throws {
        #expect(try await completionOrder(order: .lifo, count: 10) == Array((0..<10).reversed()))
    }

    @Test func fifoStartsTheOldestWaitingDownloadFirst() async throws {
        #expect(try await completionOrder(order: .fifo, count: 10) == Array(0..<10))
    }

    @Test func highPriorityJumpsTheQueueAndLowPriorityWaits() async throws {
        let order = try await completionOrder(order: .fifo, count: 6) { index in
            index == 4 ? .highPriority : index == 1 ? .lowPriority : []
        }
        #expect(order == [4, 0, 2, 3, 5, 1])
    }

    @Test func aWaitingDownloadRisesWhenAHigherPriorityCallerJoins() async throws {
        try await withOrigin { server in
            let downloader = makeDownloader { $0.maxConcurrentDownloads = 1 }
            let finished = Locked<[String]>([])
            let blocker = downloader.recordedDownload(server.url("/images/sdwebimage/TestImage.gif?delay=300")).1
            #expect(await server.wait { $0.requests["/images/sdwebimage/TestImage.gif"] == 1 })
            var recorders: [DownloadRecorder] = []
            for name in ["a", "b", "c", "b"] {
                let recorder = DownloadRecorder()
                // The second "b" caller asks for high priority: its shared download moves up.
                downloader.downloadImage(
                    with: server.url("/images/sdwebimage/TestImage.png?n=\(name)"),
                    options: recorders.count == 3 ? .highPriority : [],
                    completed: { image, data, error, done in
                        if done { finished.withLock { $0.append(name) } }
                        recorder.completion(image, data, error, done)
                    })
                recorders.append(recorder)
            }
            _ = await blocker.outcome()
            for recorder in recorders { _ = await recorder.outcome() }
            // One request for both "b" callers, started first (the origin's order: completions run
            // after the slot is freed, so their order is not the start order).
            #expect((server.statistics.requestLog["/images/sdwebimage/TestImage.png"] ?? []).map { $0.query["n"] } == ["b", "a", "c"])
            #expect(finished.withLock { $0 }.sorted() == ["a", "b", "b", "c"])
        }
    }

    @Test func suspendingStopsNewStartsUntilResumed() async throws {
        try await withOrigin { server in
            let downloader = makeDownloader()
            downloader.isSuspended = true
            let (_, recorder) = downloader.recordedDownload(server.url("/images/sdwebimage/TestImage.png"))
            #expect(downloader.currentDownloadCount == 1)
            // Give the queue every chance to start it: another downloader's whole download.
            _ = try await makeDownloader().downloadImage(with: server.url("/images/sdwebimage/TestImage.jpg"))
            #expect(server.requestCount("/images/sdwebimage/TestImage.png") == 0)
            downloader.isSuspended = false
            #expect(await recorder.outcome().image?.pixelWidth == 300)
        }
    }

    @Test func maxConcurrentDownloadsLimitsTheRequestsInFlight() async throws {
        try await withOrigin { server in
            let downloader = makeDownloader { $0.maxConcurrentDownloads = 3 }
            #expect(downloader.maxConcurrentDownloads == 3)
            let recorders = (0..<9).map { downloader.recordedDownload(server.url("/images/photos/rocket.jpg?n=\($0)&delay=200")).1 }
            for recorder in recorders { #expect(await recorder.outcome().image != nil) }
            // Never more than 3; at least 2 at once even when the machine is busy.
            #expect((2...3).contains(server.statistics.maxRequestsInFlight), "\(server.statistics.maxRequestsInFlight)")
        }
    }
}
