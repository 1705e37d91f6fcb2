import Foundation
import ImageEngine
import Testing
import WebImage
import WebImageTestServer
import WebImageTestSupport

extension Documentation {
    /// The code of the catalog's Getting Started article (Sources/WebImage/WebImage.docc), run
    /// against the test server: `ArticleCodeTests` checks that the article quotes these lines.
    @Suite("Getting started", .offThePool) struct GettingStartedExamples {
        @Test func loadsByURLAsyncThenFromMemory() async throws {
            let scratch = try ScratchFolder()
            defer { scratch.remove() }
            try await withOrigin { server in
                let url = server.url("/images/photos/rocket.jpg")
                let cacheFolder = scratch.path

                let cache = ImageCache(namespace: "getting-started", diskCacheDirectory: cacheFolder)
                let manager = WebImageManager(cache: cache, loader: ImageLoadersManager.shared)

                let result = try await manager.loadImage(with: url)
                let image = result.image            // 640x427 pixels, decoded
                let source = result.cacheType       // .none: it was downloaded

                #expect(image.pixelWidth == 640 && image.pixelHeight == 427 && source == .none)
                let again = try await manager.loadImage(with: url)
                #expect(again.cacheType == .memory && again.image === image)
            }
        }

        @Test func loadsByURLWithACallback() async throws {
            let scratch = try ScratchFolder()
            defer { scratch.remove() }
            try await withOrigin { server in
                let url = server.url("/images/photos/rocket.jpg")
                let manager = WebImageManager(cache: scratch.imageCache(), loader: ImageLoadersManager.shared)
                let (shown, shownContinuation) = AsyncStream<Image?>.makeStream()
                let show: @Sendable (Image?) -> Void = { shownContinuation.yield($0) }

                let operation = manager.loadImage(with: url, options: .highPriority) { image, data, error, cacheType, finished, imageURL in
                    guard finished else { return }      // partial images of a progressive load come first
                    if let error { print("\(imageURL?.absoluteString ?? "no URL"): \(error)") }
                    show(image)
                }
                // operation.cancel() stops the load: the completion then gets WebImageError.cancelled, once

                var images = shown.makeAsyncIterator()
                let image = try #require(await images.next() ?? nil)
                #expect(image.pixelWidth == 640 && !operation.isCancelled)
            }
        }

        @Test func loadsAThumbnailAndATransformedThumbnail() async throws {
            let scratch = try ScratchFolder()
            defer { scratch.remove() }
            try await withOrigin { server in
                let url = server.url("/images/photos/rocket.jpg")
                let manager = WebImageManager(cache: scratch.imageCache(), loader: ImageLoadersManager.shared)

                var context = WebImageContext()
                context.imageThumbnailPixelSize = CGSize(width: 200, height: 200)
                let thumbnail = try await manager.loadImage(with: url, context: context).image   // 200x133: decoded at that size

                #expect(thumbnail.pixelWidth == 200 && thumbnail.pixelHeight == 133)

                context.imageTransformer = PipelineTransformer(transformers: [
                    CroppingTransformer(rect: CGRect(x: 0, y: 0, width: 133, height: 133)),
                    RoundCornerTransformer(radius: 16),
                ])
                let avatar = try await manager.loadImage(with: url, context: context).image       // 133x133, rounded
                let key = manager.cacheKey(for: url, context: context)   // …/rocket-Thumbnail(…)-SDImageCroppingTransformer(…)-….jpg

                #expect(avatar.pixelWidth == 133 && avatar.pixelHeight == 133 && avatar.hasAlpha)
                #expect(avatar.pixel(x: 0, y: 0)?.alpha == 0 && avatar.pixel(x: 66, y: 66)?.alpha == 255)
                #expect(key.contains("Thumbnail(") && key.contains("SDImageRoundCornerTransformer") && key.hasSuffix(".jpg"))
                // Only the original was downloaded: the second load made its thumbnail from the disk cache.
                #expect(server.requestCount("/images/photos/rocket.jpg") == 1)
            }
        }

        @Test func storesAndQueriesTheCache() async throws {
            let scratch = try ScratchFolder()
            defer { scratch.remove() }
            let cacheFolder = scratch.path
            let image = try #require(Image(data: TestImages.data("photos/rocket.jpg")))

            var config = ImageCacheConfig()
            config.maxMemoryCost = 256 << 20                    // bytes of pixels; 0 = unlimited
            config.maxDiskSize = 1 << 30                        // over it, the oldest entries go, down to half
            let cache = ImageCache(namespace: "thumbnails", diskCacheDirectory: cacheFolder, config: config)

            await cache.store(image, imageData: nil, forKey: "avatar-42", toDisk: true)   // returns after the disk write
            let inMemory = await cache.queryImage(forKey: "avatar-42")                     // .memory
            cache.clearMemory()
            let onDisk = await cache.queryImage(forKey: "avatar-42")                       // .disk: read, then decoded
            let path = cache.cachePath(forKey: "avatar-42")                                // <cacheFolder>/thumbnails/<MD5 of the key>

            #expect(inMemory.cacheType == .memory && inMemory.image === image)
            #expect(onDisk.cacheType == .disk && onDisk.image?.pixelWidth == 640 && onDisk.data != nil)
            #expect(path?.hasPrefix(cacheFolder + "/thumbnails/") == true)
        }
    }
}
