import Foundation
internal import ImageEngine

/// An ordered set of coders that is itself a coder: SDWebImage's `SDImageCodersManager`.
/// The coder added last is asked first.
public final class ImageCodersManager: ThrowingImageCoder {
    /// The coders every default decode and encode uses: the progressive coder (asked last; the
    /// loaders find it for partial images), libvips, then TurboJPEG for small JPEGs, libpng for
    /// small 8-bit PNGs and APNG on top.
    public static let shared = ImageCodersManager()

    private let storage: Locked<[any ImageCoder]>

    /// A manager with the built-in coders (`ProgressiveVipsCoder`, `VipsImageCoder`,
    /// `TurboJPEGCoder`, `LibPNGCoder`, `APNGCoder`).
    public convenience init() {
        self.init(coders: [ProgressiveVipsCoder(), VipsImageCoder.shared, TurboJPEGCoder.shared, LibPNGCoder.shared, APNGCoder()])
    }

    /// A manager with exactly `coders` (the last is asked first).
    public init(coders: [any ImageCoder]) {
        storage = Locked(coders)
    }

    /// The coders, in the order they were added.
    public var coders: [any ImageCoder] {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    /// Adds a coder that will be asked before every coder already present.
    public func addCoder(_ coder: any ImageCoder) {
        storage.withLock { $0.append(coder) }
    }

    /// Removes every coder of the same type as `coder`.
    public func removeCoder(_ coder: any ImageCoder) {
        let type = ObjectIdentifier(Swift.type(of: coder))
        storage.withLock { $0.removeAll { ObjectIdentifier(Swift.type(of: $0)) == type } }
    }

    public func canDecode(from data: Data) -> Bool {
        coders.contains { $0.canDecode(from: data) }
    }

    public func canEncode(to format: ImageFormat) -> Bool {
        coders.contains { $0.canEncode(to: format) }
    }

    public func decode(_ data: Data, options: ImageCoderOptions) throws(ImageCodingError) -> Image {
        guard !data.isEmpty else { throw .emptyData }
        guard let coder = coders.reversed().first(where: { $0.canDecode(from: data) }) else {
            let format = ImageFormat(sniffing: data)
            throw format == .undefined ? .unknownFormat : .unsupportedFormat(format)
        }
        return try coder.decode(data, options: options)
    }

    /// Encodes with the first coder that writes `format`; `.undefined` picks PNG for images with
    /// alpha and JPEG for the rest (GIF for animations), as SDWebImage does.
    public func encode(_ image: Image, format: ImageFormat, options: ImageCoderOptions) throws(ImageCodingError) -> Data {
        let target = format == .undefined ? (image.isAnimated ? .gif : image.hasAlpha ? .png : .jpeg) : format
        guard let coder = coders.reversed().first(where: { $0.canEncode(to: target) }) else {
            throw .unsupportedFormat(target)
        }
        return try coder.encode(image, format: target, options: options)
    }
}
