import Dispatch
import Foundation
import ImageEngine
import Synchronization
import Testing
import WebImageTestServer
import WebImage
import WebImageTestSupport

// The example of the catalog's "Writing a custom cache" article (Sources/WebImage/WebImage.docc),
// compiled and run here: `ArticleCodeTests` checks that the article quotes these lines.

/// Keeps images as their encoded bytes, decoded again on every hit. The bytes live in a
/// dictionary behind a lock here; a cache on other storage (a database, an object store) has
/// the same shape, with the store's calls in place of the dictionary's. Its hits are reported
/// as `.disk`: not held decoded in memory. Hits decode with the context's coder, else the
/// shared coders.
final class EncodedImageCache: ImageCacheProtocol, @unchecked Sendable {
    // @unchecked: `entries` is read and written only while `lock` is held.
    private let lock = NSLock()
    private var entries: [String: Data] = [:]

    @discardableResult
    func queryImage(
        forKey key: String?, options: WebImageOptions, context: WebImageContext?, cacheType: ImageCacheType,
        completion: ImageCacheQueryCompletion?
    ) -> (any WebImageOperation)? {
        guard let key, cacheType == .disk || cacheType == .all, let data = lock.withLock({ entries[key] }) else {
            completion?(nil, nil, .none)
            return nil
        }
        let query = EncodedImageQuery(completion: completion)
        // Decode as the load asks (a thumbnail, a first frame), off the cooperative pool.
        let coderOptions = ImageDecoding.coderOptions(forName: key, options: options, context: context)
        Task {
            let image = try? await BlockingPool.run { try ImageDecoding.decode(data, name: key, options: coderOptions, context: context) }
            query.finish(image, image == nil ? nil : data, image == nil ? .none : .disk)
        }
        return query
    }

    func store(
        _ image: Image?, imageData: Data?, forKey key: String?, cacheType: ImageCacheType,
        completion: ImageCacheCompletion?
    ) {
        guard let key, cacheType == .disk || cacheType == .all, image != nil || imageData != nil else {
            completion?()
            return
        }
        if let imageData {
            lock.withLock { entries[key] = imageData }
            completion?()
            return
        }
        // No bytes given (a transformed image): encode it, off the cooperative pool.
        Task {
            if let image, let data = try? await BlockingPool.run({ try ImageCodersManager.shared.encode(image, format: .undefined, options: ImageCoderOptions()) }) {
                lock.withLock { entries[key] = data }
            }
            completion?()
        }
    }

    func removeImage(forKey key: String?, cacheType: ImageCacheType, completion: ImageCacheCompletion?) {
        if let key, cacheType == .disk || cacheType == .all { _ = lock.withLock { entries.removeValue(forKey: key) } }
        completion?()
    }

    func containsImage(forKey key: String?, cacheType: ImageCacheType, completion: ImageCacheContainsCompletion?) {
        let found = key.map { key in lock.withLock { entries[key] != nil } } ?? false
        completion?(found && (cacheType == .disk || cacheType == .all) ? .disk : .none)
    }

    func clear(with cacheType: ImageCacheType, completion: ImageCacheCompletion?) {
        if cacheType == .disk || cacheType == .all { lock.withLock { entries.removeAll() } }
        completion?()
    }
}

/// One query of an `EncodedImageCache`. Its completion runs once: with what was found, or with
/// nothing when cancelled first.
final class EncodedImageQuery: WebImageOperation {
    private let completion: ImageCacheQueryCompletion?
    private let completed = Atomic(false)
    private let cancelled = Atomic(false)

    init(completion: ImageCacheQueryCompletion?) {
        self.completion = completion
    }

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        finish(nil, nil, .none)
    }

    func finish(_ image: Image?, _ data: Data?, _ cacheType: ImageCacheType) {
        guard !completed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        completion?(image, data, cacheType)
    }
}

extension Documentation {
    @Suite("A custom cache", .offThePool) struct CustomCacheExample {
        @Test func servesTheManagerAfterTheFileIsGone() async throws {
            let scratch = try ScratchFolder()
            defer { scratch.remove() }
            let file = URL(fileURLWithPath: scratch.path + "/rocket.jpg")
            try TestImages.data("photos/rocket.jpg").write(to: file)

            let cache = EncodedImageCache()
            let manager = WebImageManager(cache: cache, loader: ImageLoadersManager())
            let loaded = try await manager.loadImage(with: file, options: .waitStoreCache)

            try FileManager.default.removeItem(at: file)
            let cached = try await manager.loadImage(with: file)                        // .disk: decoded from the bytes kept
            var context = WebImageContext()
            context.imageThumbnailPixelSize = CGSize(width: 100, height: 100)
            let thumbnail = try await manager.loadImage(with: file, options: .waitStoreCache, context: context)   // from the cached original

            #expect(loaded.cacheType == .none && cached.cacheType == .disk && cached.image.pixelWidth == 640)
            #expect(thumbnail.cacheType == .disk && thumbnail.image.pixelWidth == 100 && thumbnail.image.pixelHeight == 67)
            #expect(await cache.containsImage(forKey: manager.cacheKey(for: file, context: context)) == .disk)
        }

        @Test func answersTheAsyncFormsAndComposesWithOtherCaches() async throws {
            let scratch = try ScratchFolder()
            defer { scratch.remove() }
            let data = try TestImages.data("photos/rocket.jpg")
            let encoded = EncodedImageCache()
            let local = scratch.imageCache()
            let caches = ImageCachesManager(caches: [encoded, local])   // `local` is asked first
            await encoded.store(nil, imageData: data, forKey: "rocket")

            let found = await caches.queryImage(forKey: "rocket")
            let inMemory = await caches.queryImage(forKey: "rocket", cacheType: .memory)
            await caches.clear(with: .all)
            let afterClear = await encoded.queryImage(forKey: "rocket")

            #expect(found.cacheType == .disk && found.image?.pixelWidth == 640 && found.data == data)
            #expect(inMemory.image == nil && inMemory.cacheType == .none)
            #expect(afterClear.image == nil && afterClear.cacheType == .none)
        }

        @Test func storesAnImageWithoutBytesEncoded() async throws {
            let image = try #require(Image(data: TestImages.data("pngsuite/basn6a08.png")))
            let cache = EncodedImageCache()
            await cache.store(image, imageData: nil, forKey: "with-alpha")
            let found = await cache.queryImage(forKey: "with-alpha")
            #expect(found.data.map(ImageFormat.init(sniffing:)) == .png)
            #expect(try found.image?.withUnsafeRGBA8Bytes { [UInt8]($0) } == image.withUnsafeRGBA8Bytes { [UInt8]($0) })
        }

        @Test func aCancelledQueryCompletesOnceWithNothing() async throws {
            let cache = EncodedImageCache()
            await cache.store(nil, imageData: try TestImages.data("photos/rocket.jpg"), forKey: "rocket")
            // The query is held in its decode until the test has cancelled it.
            let gate = TestGate()
            defer { gate.open() }
            var context = WebImageContext()
            context.imageCoder = GatedCoder(gate: gate)
            let results = Locked<[ImageCacheType]>([])
            let operation = cache.queryImage(forKey: "rocket", options: [], context: context, cacheType: .all) { image, _, cacheType in
                results.withLock { $0.append(cacheType) }
                #expect(image == nil)
            }
            operation?.cancel()
            operation?.cancel()
            #expect(results.withLock { $0 } == [.none] && operation?.isCancelled == true)
        }
    }
}
