import Foundation
import Glibc
import ImageEngine
import Testing
@testable import WebImage

/// Images and scratch folders for the cache tests (test files come from `TestImages`).
enum CacheFixtures {
    /// The decoded image of a test file.
    static func image(_ relativePath: String) throws -> Image {
        try #require(Image(data: TestImages.data(relativePath)))
    }

    /// A solid image of `width` x `height` (cost `width * height * 4`).
    static func solidImage(width: Int = 4, height: Int = 4, value: UInt8 = 200) throws -> Image {
        try #require(Image(rgba8Pixels: [UInt8](repeating: value, count: width * height * 4), width: width, height: height))
    }

    /// The RGBA8 bytes of `image`.
    static func pixels(of image: Image) throws -> [UInt8] {
        try image.withUnsafeRGBA8Bytes { [UInt8]($0) }
    }

    /// Sets the access and modification times of `path` to `age` seconds ago.
    static func age(_ path: String, by age: TimeInterval) {
        let then = Date().addingTimeInterval(-age).timeIntervalSince1970
        let time = timeval(tv_sec: Int(then), tv_usec: Int((then - then.rounded(.down)) * 1e6))
        var times = [time, time]
        _ = utimes(path, &times)
    }
}

/// A fresh folder under the temporary directory, removed by `remove()`.
struct ScratchFolder {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.path + "/webimage-cache-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// An `ImageCache` whose disk tier is `<path>/<namespace>`.
    func imageCache(namespace: String = "test", config: ImageCacheConfig = ImageCacheConfig()) -> ImageCache {
        ImageCache(namespace: namespace, diskCacheDirectory: path, config: config)
    }

    /// The visible files (entries) in `folder`.
    static func entryNames(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasPrefix(".") }
    }

    /// Every file in `folder`, hidden ones included.
    static func allNames(in folder: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    }
}

/// Counts how often a completion runs.
final class CallCounter: Sendable {
    private let count = Locked(0)

    func increment() {
        count.withLock { $0 += 1 }
    }

    var value: Int { count.withLock { $0 } }
}
