import Foundation

/// Turns an image into another (resized, cropped, rounded, ...): SDWebImage's `SDImageTransformer`.
///
/// The built-in transformers work on both forms an `Image` takes: a lazy image gains libvips
/// steps (decode, transforms and encode then run as one pipeline, with no bitmap in between),
/// and a decoded image is transformed from its pixels. Scale and format are kept. An animated
/// image has every frame transformed (on demand), keeping durations and loop count; a custom
/// transformer can do the same with `Image.mappingFrames(_:)`.
public protocol ImageTransformer: Sendable {
    /// Identifies the transformer and its parameters in cache keys (`transformedKey`): equal
    /// parameters give equal keys, different ones different keys, whatever the locale.
    var transformerKey: String { get }
    /// The transformed image, or nil when the transform cannot apply (such as a crop wholly
    /// outside the image). `key` is the cache key of the image being transformed.
    func transformedImage(with image: Image, forKey key: String) -> Image?
}
