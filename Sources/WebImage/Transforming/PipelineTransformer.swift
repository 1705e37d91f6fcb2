/// Several transformers in order: SDWebImage's `SDImagePipelineTransformer`. On a lazy image
/// every step joins the same libvips pipeline, with no bitmap in between.
public struct PipelineTransformer: ImageTransformer {
    public let transformers: [any ImageTransformer]

    /// A transformer running `transformers` first to last.
    public init(transformers: [any ImageTransformer]) {
        self.transformers = transformers
    }

    /// The parts' keys in order, joined by `-`.
    public var transformerKey: String {
        transformers.map(\.transformerKey).joined(separator: "-")
    }

    /// Nil as soon as one part gives nil.
    public func transformedImage(with image: Image, forKey key: String) -> Image? {
        var result = image
        for transformer in transformers {
            guard let next = transformer.transformedImage(with: result, forKey: key) else { return nil }
            result = next
        }
        return result
    }
}
