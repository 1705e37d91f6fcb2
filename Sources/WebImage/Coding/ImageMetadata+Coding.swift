internal import ImageEngine

extension VipsImageRef {
    /// A copy for a saver that keeps metadata: `metadata`'s, with the profile of the decoded
    /// pixels and EXIF orientation 1 (decoded pixels are upright), in place of this image's.
    func replacingMetadata(with metadata: ImageMetadata) throws(VipsError) -> VipsImageRef {
        try replacingMetadata(exif: metadata.exif, xmp: metadata.xmp, iptc: metadata.iptc, iccProfile: metadata.decodedPixelsProfile)
    }
}

extension ImageCoderOptions {
    /// Whether an encode of `image` writes metadata: asked to, and there is some to keep.
    func keepsMetadata(of image: Image) -> Bool {
        encodeKeepsMetadata && !image.metadata.isEmpty
    }
}
