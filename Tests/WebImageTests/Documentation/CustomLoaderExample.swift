import Dispatch
import Foundation
import ImageEngine
import Synchronization
import Testing
import WebImageTestServer
import WebImage
import WebImageTestSupport

// The example of the catalog's "Writing a custom loader" article (Sources/WebImage/WebImage.docc),
// compiled and run here: `ArticleCodeTests` checks that the article quotes these lines.

/// Loads `asset:` URLs (`asset:logos/acme.png`) from one folder. A name that would leave the
/// folder (`..`, an empty part) is an invalid URL.
struct AssetImageLoader: ImageLoader {
    let folder: URL

    func canRequestImage(for url: URL?) -> Bool {
        url?.scheme?.lowercased() == "asset"
    }

    @discardableResult
    func requestImage(
        with url: URL?, options: WebImageOptions, context: WebImageContext?,
        progress: ImageLoaderProgress?, completed: ImageLoaderCompletion?
    ) -> (any WebImageOperation)? {
        guard let url, canRequestImage(for: url), let file = file(for: url) else {
            completed?(nil, nil, WebImageError.invalidURL, true)
            return nil
        }
        let operation = AssetLoadOperation(completion: completed, callbackQueue: context?.callbackQueue)
        // The decode options the load asks for, as the built-in loaders build them.
        let coderOptions = ImageDecoding.coderOptions(forName: url.absoluteString, options: options, context: context)
        Task {
            // File I/O and decoding block: the blocking pool, never the cooperative pool.
            let result: Result<(Image, Data), any Error>
            do {
                result = .success(try await BlockingPool.run {
                    let data = try Data(contentsOf: file)
                    progress?(data.count, data.count, url)
                    return (try ImageDecoding.decode(data, name: url.absoluteString, options: coderOptions, context: context), data)
                })
            } catch let error as WebImageError {
                result = .failure(error)
            } catch {
                result = .failure(URLError(.fileDoesNotExist, userInfo: [NSURLErrorFailingURLErrorKey: url]))
            }
            switch result {
            case .success(let (image, data)): operation.finish(image, data, nil)
            case .failure(let error): operation.finish(nil, nil, error)
            }
        }
        return operation
    }

    /// A missing asset stays missing, and bad data stays bad: both block the URL. A cancelled
    /// load may be tried again.
    func shouldBlockFailedURL(_ url: URL, error: any Error) -> Bool {
        (error as? WebImageError) != .cancelled
    }

    /// The file of `asset:<path>` inside the folder, or nil.
    func file(for url: URL) -> URL? {
        let string = url.absoluteString
        guard let colon = string.firstIndex(of: ":"), let path = string[string.index(after: colon)...].removingPercentEncoding
        else { return nil }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("\0") }) else { return nil }
        return parts.reduce(folder) { $0.appendingPathComponent(String($1)) }
    }
}

/// One asset load. Its completion runs once: with the result, or with `.cancelled` when
/// cancelled first (the read and decode already running finish unseen).
final class AssetLoadOperation: WebImageOperation {
    private let completion: ImageLoaderCompletion?
    private let callbackQueue: DispatchQueue?
    private let completed = Atomic(false)
    private let cancelled = Atomic(false)

    init(completion: ImageLoaderCompletion?, callbackQueue: DispatchQueue?) {
        self.completion = completion
        self.callbackQueue = callbackQueue
    }

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        finish(nil, nil, WebImageError.cancelled)
    }

    /// Delivers the outcome unless one was delivered already.
    func finish(_ image: Image?, _ data: Data?, _ error: (any Error)?) {
        guard !completed.exchange(true, ordering: .acquiringAndReleasing), let completion else { return }
        if let callbackQueue {
            callbackQueue.async { completion(image, data, error, true) }
        } else {
            completion(image, data, error, true)
        }
    }
}

extension Documentation {
    @Suite("A custom loader", .offThePool) struct CustomLoaderExample {
        /// A folder holding `logos/rocket.jpg`, a copy of a test photo.
        private static func assetFolder(in scratch: ScratchFolder) throws -> URL {
            let folder = URL(fileURLWithPath: scratch.path + "/assets")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("logos"), withIntermediateDirectories: true)
            try TestImages.data("photos/rocket.jpg").write(to: folder.appendingPathComponent("logos/rocket.jpg"))
            return folder
        }

        @Test func loadsThroughTheManagerThenFromTheCache() async throws {
            let scratch = try ScratchFolder()
            defer { scratch.remove() }
            let assetFolder = try Self.assetFolder(in: scratch)
            let cache = scratch.imageCache()

            let loaders = ImageLoadersManager()                              // http(s), file and data
            loaders.addLoader(AssetImageLoader(folder: assetFolder))         // asked first
            let manager = WebImageManager(cache: cache, loader: loaders)

            let url = try #require(URL(string: "asset:logos/rocket.jpg"))
            var context = WebImageContext()
            context.imageThumbnailPixelSize = CGSize(width: 320, height: 320)
            let logo = try await manager.loadImage(with: url, options: .waitStoreCache, context: context)

            #expect(logo.cacheType == .none && logo.image.pixelWidth == 320 && logo.image.pixelHeight == 214)
            try FileManager.default.removeItem(at: assetFolder)
            let again = try await manager.loadImage(with: url, context: context)
            #expect(again.cacheType == .memory && again.image === logo.image)
        }

        @Test func refusesNamesOutsideTheFolderAndMissingFiles() async throws {
            let scratch = try ScratchFolder()
            defer { scratch.remove() }
            let loader = AssetImageLoader(folder: try Self.assetFolder(in: scratch))
            for name in ["asset:../cache-tests/secret.jpg", "asset:logos//rocket.jpg", "asset:logos/%2E%2E/rocket.jpg", "asset:"] {
                await #expect(throws: WebImageError.invalidURL, "\(name)") { try await loader.requestImage(with: URL(string: name)) }
            }
            let missing = await #expect(throws: URLError.self) { try await loader.requestImage(with: URL(string: "asset:logos/none.jpg")) }
            #expect(missing?.code == .fileDoesNotExist)
            let notAnImage = URL(fileURLWithPath: scratch.path + "/assets/logos/notes.jpg")
            try Data("not an image".utf8).write(to: notAnImage)
            await #expect(throws: WebImageError.badImageData) { try await loader.requestImage(with: URL(string: "asset:logos/notes.jpg")) }
            #expect(!loader.canRequestImage(for: URL(string: "https://example.com/logos/rocket.jpg")))
        }

        @Test func completesOnceWithCancelledWhenCancelledFirst() async throws {
            let scratch = try ScratchFolder()
            defer { scratch.remove() }
            let loader = AssetImageLoader(folder: try Self.assetFolder(in: scratch))
            // The load is held in its decode until the test has cancelled it.
            let gate = TestGate()
            defer { gate.open() }
            var context = WebImageContext()
            context.imageCoder = GatedCoder(gate: gate)
            let errors = Locked<[WebImageError?]>([])
            let operation = loader.requestImage(with: URL(string: "asset:logos/rocket.jpg"), options: [], context: context, progress: nil) { image, _, error, finished in
                errors.withLock { $0.append(error as? WebImageError) }
                #expect(image == nil && finished)
            }
            operation?.cancel()
            operation?.cancel()
            #expect(errors.withLock { $0 } == [.cancelled] && operation?.isCancelled == true)
        }
    }
}

/// Decodes with the shared coders once `gate` is opened: holds a load or a query in its
/// decode, for the tests of cancellation.
struct GatedCoder: ThrowingImageCoder {
    let gate: TestGate

    func canDecode(from data: Data) -> Bool { true }
    func canEncode(to format: ImageFormat) -> Bool { false }

    func decode(_ data: Data, options: ImageCoderOptions) throws(ImageCodingError) -> Image {
        gate.block()
        return try ImageCodersManager.shared.decode(data, options: options)
    }
}
