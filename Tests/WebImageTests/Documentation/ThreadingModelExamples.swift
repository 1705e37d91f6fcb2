import Dispatch
import Foundation
import Testing
import WebImage
import WebImageTestServer
import WebImageTestSupport

extension Documentation {
    /// The code of the catalog's "Threading model" article (Sources/WebImage/WebImage.docc), run
    /// here: `ArticleCodeTests` checks that the article quotes these lines.
    @Suite("Threading model", .offThePool) struct ThreadingModelExamples {
        /// The calling thread's name, as `top -H` and a debugger show it.
        private static func threadName() -> String {
            ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        }

        @Test func readsAndDecodesOnTheBlockingPool() async throws {
            let scratch = try ScratchFolder()
            defer { scratch.remove() }
            let file = URL(fileURLWithPath: scratch.path + "/rocket.jpg")
            try TestImages.data("photos/rocket.jpg").write(to: file)

            // In async code: read and decode on the blocking pool, never on the cooperative pool.
            let data = try await BlockingPool.run { try Data(contentsOf: file) }
            var options = ImageCoderOptions()
            options.decodeThumbnailPixelSize = CGSize(width: 200, height: 200)
            let thumbnail = try await BlockingPool.run { [options] in try ImageCodersManager.shared.decode(data, options: options) }

            #expect(thumbnail.pixelWidth == 200 && thumbnail.pixelHeight == 133)
            let thread = try await BlockingPool.run { Self.threadName() }
            #expect(thread.hasPrefix("TP-#"), "the blocking pool's thread is \(thread)")
        }

        @Test func completionsRunOnTheContextsQueue() async throws {
            let scratch = try ScratchFolder()
            defer { scratch.remove() }
            try await withOrigin { server in
                let url = server.url("/images/photos/rocket.jpg")
                let manager = WebImageManager(cache: scratch.imageCache(), loader: ImageLoadersManager.shared)
                let marker = DispatchSpecificKey<Bool>()
                let (shown, shownContinuation) = AsyncStream<(Image, Bool)>.makeStream()
                let show: @Sendable (Image) -> Void = { shownContinuation.yield(($0, DispatchQueue.getSpecific(key: marker) == true)) }

                let results = DispatchQueue(label: "thumbnails.results")
                results.setSpecific(key: marker, value: true)

                var context = WebImageContext()
                context.callbackQueue = results                        // every completion of these loads runs here
                manager.loadImage(with: url, context: context) { image, _, _, _, finished, _ in
                    guard finished, let image else { return }
                    show(image)
                }

                var images = shown.makeAsyncIterator()
                let (image, onResultsQueue) = try #require(await images.next())
                #expect(image.pixelWidth == 640 && onResultsQueue)
                // A memory hit completes on the same queue.
                manager.loadImage(with: url, context: context) { image, _, _, cacheType, finished, _ in
                    guard finished, let image, cacheType == .memory else { return }
                    show(image)
                }
                let (hit, hitOnResultsQueue) = try #require(await images.next())
                #expect(hit === image && hitOnResultsQueue)
            }
        }
    }
}
