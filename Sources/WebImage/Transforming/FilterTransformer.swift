internal import ImageEngine

/// Runs a libvips operation or a closure on an image: SDWebImage's `SDImageFilterTransformer`
/// (which runs a Core Image filter).
public struct FilterTransformer: ImageTransformer {
    private enum Filter: Sendable {
        case operation(name: String, arguments: String)
        case closure(name: String, body: @Sendable (Image) -> Image?)
    }

    private let filter: Filter

    /// A one-input libvips operation by its name (`invert`, `sharpen`, `gamma`, ...) with its
    /// optional arguments in libvips' string form (`"sigma=2,m2=4"`). It runs on 8-bit sRGB
    /// with alpha last when the image has alpha; its output is brought back to 8-bit sRGB.
    /// Operations that are not image to image, and loaders and savers (which touch files),
    /// give nil.
    public init(operation: String, arguments: String = "") {
        filter = .operation(name: operation, arguments: arguments)
    }

    /// `body` applied to the image (to each frame of an animation); `name` identifies it in
    /// the key, so it must change whenever what `body` does changes.
    public init(name: String, _ body: @escaping @Sendable (Image) -> Image?) {
        filter = .closure(name: name, body: body)
    }

    public var transformerKey: String {
        switch filter {
        case let .operation(name, arguments): "SDImageFilterTransformer(\(arguments.isEmpty ? name : name + "," + arguments))"
        case let .closure(name, _): "SDImageFilterTransformer(\(name))"
        }
    }

    public func transformedImage(with image: Image, forKey key: String) -> Image? {
        switch filter {
        case let .operation(name, arguments):
            guard Vips.isImageFilter(name) else { return nil }
            return image.transformed(by: PixelTransform { image, _ throws(VipsError) in try image.call(name, arguments) })
        case let .closure(_, body):
            return image.mappingFrames(body)
        }
    }
}
