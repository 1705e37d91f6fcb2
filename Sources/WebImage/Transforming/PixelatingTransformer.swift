internal import ImageEngine

/// Turns an image into blocks of one colour each (the block's mean): imgproxy's `pixelate`.
/// Blocks start at the top-left corner; edge blocks are averaged as if the image were
/// mirrored past its edge, as imgproxy does. Colours are averaged premultiplied when the image
/// has alpha.
public struct PixelatingTransformer: ImageTransformer {
    /// A block's side in points (pixels times the image's scale); at most the image's longer side.
    public let blockSize: Double

    /// A transformer pixelating in blocks of `blockSize` points.
    public init(blockSize: Double) {
        self.blockSize = blockSize
    }

    public var transformerKey: String {
        "PixelatingTransformer(\(TransformerKey.number(blockSize)))"
    }

    public func transformedImage(with image: Image, forKey key: String) -> Image? {
        guard blockSize.isFinite, blockSize > 1 else { return image }
        let blockSize = blockSize
        return image.transformed(by: PixelTransform { image, scale throws(VipsError) in
            let (width, height) = (image.width, image.height)
            let block = Int(min((blockSize * scale).rounded(), Double(max(width, height))))
            guard block > 1 else { return image }
            let paddedWidth = (width + block - 1) / block * block
            let paddedHeight = (height + block - 1) / block * block
            var blocks = try image.hasAlpha ? image.premultipliedEightBit() : image
            if paddedWidth > width || paddedHeight > height {
                blocks = try blocks.embeddedMirroring(x: 0, y: 0, width: paddedWidth, height: paddedHeight)
            }
            blocks = try blocks.shrunk(horizontal: block, vertical: block)
                .zoomed(horizontal: block, vertical: block)
                .extractingArea(x: 0, y: 0, width: width, height: height)
            return try image.hasAlpha ? blocks.eightBit().unpremultipliedEightBit() : blocks
        })
    }
}
