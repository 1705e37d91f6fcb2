import Foundation
internal import ImageEngine

extension Image {
    /// A placeholder painted from a BlurHash: `size` pixels (each side at least 1, at most
    /// `ImageAnalysis.maxPlaceholderPixelCount` in all), opaque. `punch` scales the contrast of
    /// the hash's components, as the reference decoder's argument does (1: as encoded).
    public convenience init(blurHash: BlurHash, size: CGSize, punch: Double = 1) throws(ImageAnalysisError) {
        guard size.width.isFinite, size.height.isFinite, size.width >= 1, size.height >= 1,
              size.width * size.height <= Double(ImageAnalysis.maxPlaceholderPixelCount)
        else { throw .placeholderSizeOutOfRange(width: size.width, height: size.height) }
        let (width, height) = (Int(size.width.rounded()), Int(size.height.rounded()))
        let rgba = blurHash.decode(width: width, height: height, punch: punch.isFinite ? punch : 1)
        self.init(placeholder: rgba, width: width, height: height, hasAlpha: false)
    }

    /// A placeholder painted from a BlurHash string; throws `invalidBlurHash` for a string that
    /// is not one.
    public convenience init(blurHash: String, size: CGSize, punch: Double = 1) throws(ImageAnalysisError) {
        try self.init(blurHash: try BlurHash(blurHash), size: size, punch: punch)
    }

    /// A placeholder painted from a ThumbHash, at the reference's size: 32 pixels on the long
    /// side, the other from the hash's aspect ratio; with alpha when the hash has it.
    public convenience init(thumbHash: ThumbHash) {
        let (width, height, rgba) = thumbHash.decode()
        self.init(placeholder: rgba, width: width, height: height, hasAlpha: thumbHash.hasAlpha)
    }

    /// A placeholder painted from a ThumbHash's bytes; throws `invalidThumbHash` for bytes that
    /// are not one.
    public convenience init(thumbHash: Data) throws(ImageAnalysisError) {
        self.init(thumbHash: try ThumbHash(thumbHash))
    }

    /// An image over decoded RGBA8 pixels (opaque ones say so: encoders then need no alpha).
    private convenience init(placeholder rgba: [UInt8], width: Int, height: Int, hasAlpha: Bool) {
        let pixels = rgba.withUnsafeBytes { PixelBuffer(copying: $0, width: width, height: height, bands: 4) }
        self.init(recipe: .bitmap(pixels), pixels: pixels, pixelWidth: width, pixelHeight: height, format: .undefined, hasAlpha: hasAlpha)
    }
}
