import Foundation
internal import ImageEngine

/// An ordered set of loaders that is itself a loader: SDWebImage's `SDImageLoadersManager`.
/// The loader added last is asked first.
public final class ImageLoadersManager: ImageLoader {
    /// HTTP(S) through `ImageDownloader.shared`, `file://` and `data:` URLs.
    public static let shared = ImageLoadersManager()

    private let storage: Locked<[any ImageLoader]>

    /// A manager with the built-in loaders: `ImageDownloader.shared`, `FileImageLoader`, `DataURLImageLoader`.
    public convenience init() {
        self.init(loaders: [ImageDownloader.shared, FileImageLoader(), DataURLImageLoader()])
    }

    /// A manager with exactly `loaders` (the last is asked first).
    public init(loaders: [any ImageLoader]) {
        storage = Locked(loaders)
    }

    /// The loaders, in the order they were added.
    public var loaders: [any ImageLoader] {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    /// Adds a loader that will be asked before every loader already present.
    public func addLoader(_ loader: any ImageLoader) {
        storage.withLock { $0.append(loader) }
    }

    /// Removes every loader of the same type as `loader` (the same object, for classes).
    public func removeLoader(_ loader: any ImageLoader) {
        let type = ObjectIdentifier(Swift.type(of: loader))
        let object = (loader as AnyObject?).map(ObjectIdentifier.init)
        storage.withLock { loaders in
            loaders.removeAll { candidate in
                guard ObjectIdentifier(Swift.type(of: candidate)) == type else { return false }
                guard let object, Swift.type(of: loader) is AnyClass else { return true }
                return ObjectIdentifier(candidate as AnyObject) == object
            }
        }
    }

    private func loader(for url: URL?) -> (any ImageLoader)? {
        loaders.reversed().first { $0.canRequestImage(for: url) }
    }

    public func canRequestImage(for url: URL?) -> Bool {
        loader(for: url) != nil
    }

    /// Asks the last added loader that handles `url`; with none, completes at once with `.invalidURL`.
    @discardableResult
    public func requestImage(
        with url: URL?, options: WebImageOptions, context: WebImageContext?,
        progress: ImageLoaderProgress?, completed: ImageLoaderCompletion?
    ) -> (any WebImageOperation)? {
        guard let loader = loader(for: url) else {
            completed?(nil, nil, WebImageError.invalidURL, true)
            return nil
        }
        return loader.requestImage(with: url, options: options, context: context, progress: progress, completed: completed)
    }

    public func shouldBlockFailedURL(_ url: URL, error: any Error) -> Bool {
        loader(for: url)?.shouldBlockFailedURL(url, error: error) ?? false
    }

    /// The validators the loader that returned `operation` gives.
    public func responseValidators(of operation: any WebImageOperation) -> HTTPValidators? {
        loaders.reversed().lazy.compactMap { $0.responseValidators(of: operation) }.first
    }
}
