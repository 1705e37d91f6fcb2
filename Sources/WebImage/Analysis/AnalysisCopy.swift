import Foundation

/// The small copy of an image that analyses (`ImageAnalysis`) and face detection
/// (`OpenCVFaceDetector`) read: fitted in a side, never enlarged, first frame, 8-bit.
enum AnalysisCopy {
    /// `options` (their limits kept) set to decode such a copy at once, fitted in `side` pixels
    /// a side while decoding (shrink-on-load).
    static func decodeOptions(_ options: ImageCoderOptions, fitting side: Int) -> ImageCoderOptions {
        var options = options
        options.decodeThumbnailPixelSize = CGSize(width: Double(side), height: Double(side))
        options.decodePreserveAspectRatio = true
        options.decodeFirstFrameOnly = true
        options.decodeFrameLimit = 1
        options.decodeUseLazyDecoding = false
        options.decodeToHDR = false
        options.decodeScaleFactor = 1
        return options
    }

    /// The size a `width` x `height` image is fitted to in `side`, as the shrink-on-load decode
    /// fits it, never enlarged.
    static func fittedSize(width: Int, height: Int, side: Int) -> (width: Int, height: Int) {
        let factor = min(1, Double(side) / Double(max(width, 1)), Double(side) / Double(max(height, 1)))
        guard factor < 1 else { return (width, height) }
        return (max(1, min(side, Int((Double(width) * factor).rounded()))), max(1, min(side, Int((Double(height) * factor).rounded()))))
    }

    /// `image` resized to fit in `side` pixels a side (the library's Lanczos-3, colours weighted
    /// by alpha); `image` itself when it fits; nil when it cannot be resized.
    static func fitted(_ image: Image, side: Int) -> Image? {
        let (width, height) = fittedSize(width: image.pixelWidth, height: image.pixelHeight, side: side)
        guard width < image.pixelWidth || height < image.pixelHeight else { return image }
        // The transformer takes points; the image's scale turns them back into these pixels.
        let size = CGSize(width: Double(width) / image.scale, height: Double(height) / image.scale)
        return ResizingTransformer(size: size, scaleMode: .fill).transformedImage(with: image, forKey: "")
    }
}
