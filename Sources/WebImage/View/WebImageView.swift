import Foundation

/// Anything that shows an image and can have a URL bound to it: SDWebImage's `UIImageView`
/// category, for Linux, where there is no UIKit (a terminal preview, a server-side renderer, a
/// test double). Conform with `var image` and one stored property:
///
/// ```swift
/// @MainActor final class Preview: WebImageView {
///     var image: Image?
///     let webImageBinding = WebImageBinding()
/// }
/// preview.setImage(with: url, placeholderImage: placeholder)
/// ```
@MainActor public protocol WebImageView: AnyObject, Sendable {
    /// The image shown.
    var image: Image? { get set }
    /// Where the binding keeps its state (the current load per operation key, URL, progress).
    var webImageBinding: WebImageBinding { get }
}

/// A step of an image's arrival, between loading and showing: SDWebImage's `SDWebImageTransition`.
@MainActor public protocol WebImageTransition {
    /// Called before `image` is set on `view` (not for memory hits unless `.forceTransition`).
    func willSet(_ image: Image?, on view: any WebImageView, cacheType: ImageCacheType)
    /// Called after it was set.
    func didSet(_ image: Image?, on view: any WebImageView, cacheType: ImageCacheType)
}

/// Shows that a load runs: SDWebImage's `SDWebImageIndicator`.
@MainActor public protocol WebImageIndicator {
    func startAnimatingIndicator()
    func stopAnimatingIndicator()
    /// Progress from 0 to 1.
    func updateIndicatorProgress(_ progress: Double)
}

/// How far the current load is: received and expected bytes (expected 0 when unknown).
public struct ImageLoadProgress: Sendable, Equatable {
    public var completedUnitCount = 0
    public var totalUnitCount = 0
    /// From 0 to 1 (0 while the size is unknown).
    public var fractionCompleted: Double {
        totalUnitCount > 0 ? min(1, Double(completedUnitCount) / Double(totalUnitCount)) : 0
    }
}

/// The state a `WebImageView` keeps: one running load per operation key.
@MainActor public final class WebImageBinding {
    var operations: [String: CombinedOperation] = [:]
    /// The URL of the current load.
    public internal(set) var imageURL: URL?
    /// The current load's progress.
    public internal(set) var imageProgress = ImageLoadProgress()
    /// Called around setting a loaded image.
    public var imageTransition: (any WebImageTransition)?
    /// Shown while a load runs.
    public var imageIndicator: (any WebImageIndicator)?

    /// Empty state.
    public nonisolated init() {}
}
