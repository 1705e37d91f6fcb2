import Foundation

/// Animated PNG (APNG) coder. libvips 8.14 reads only an APNG's first frame.
public final class APNGCoder: ImageCoder {
    public init() {}
    public func canDecode(from data: Data) -> Bool { false }
    public func decodedImage(with data: Data, options: ImageCoderOptions) -> Image? { nil }
    public func canEncode(to format: ImageFormat) -> Bool { false }
    public func encodedData(with image: Image, format: ImageFormat, options: ImageCoderOptions) -> Data? { nil }
}
