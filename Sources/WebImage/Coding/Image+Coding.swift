import Foundation

/// An image from bytes and back, through the shared coders.
extension Image {
    /// Decodes `data` with the shared coders (`ImageCodersManager.shared`); nil if no coder can.
    public convenience init?(data: Data, scale: Double = 1) {
        var options = ImageCoderOptions()
        options.decodeScaleFactor = scale
        guard let image = ImageCodersManager.shared.decodedImage(with: data, options: options) else { return nil }
        self.init(sharing: image, animatedImageProvider: image.animatedImageProvider)
    }

    /// Encodes the image with the shared coders (`ImageCodersManager.shared`).
    public func encodedData(format: ImageFormat, options: ImageCoderOptions = ImageCoderOptions()) -> Data? {
        ImageCodersManager.shared.encodedData(with: self, format: format, options: options)
    }
}
