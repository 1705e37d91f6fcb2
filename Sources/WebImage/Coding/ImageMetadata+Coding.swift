internal import ImageEngine

extension VipsImageRef {
    /// A copy for a saver that keeps metadata: `kept`'s, with the profile of the decoded pixels
    /// and EXIF orientation 1 (decoded pixels are upright), in place of this image's.
    func replacingMetadata(with kept: KeptMetadataBlocks) throws(VipsError) -> VipsImageRef {
        let metadata = kept.metadata
        return try replacingMetadata(
            exif: metadata.exif, xmp: metadata.xmp, iptc: metadata.iptc, iccProfile: metadata.decodedPixelsProfile,
            exifCopyrightOnly: kept.exifCopyrightOnly
        )
    }
}

/// The metadata an encode writes: the image's, less what `encodeKeptMetadata` leaves out.
struct KeptMetadataBlocks {
    let metadata: ImageMetadata
    /// Of the EXIF, its Copyright and Artist tags alone.
    let exifCopyrightOnly: Bool
}

extension ImageCoderOptions {
    /// The metadata an encode of `image` writes; nil when none: not asked to, or nothing to keep.
    func keptMetadata(of image: Image) -> KeptMetadataBlocks? {
        guard encodeKeepsMetadata else { return nil }
        let kinds = encodeKeptMetadata, source = image.metadata
        // The copyright alone: an EXIF without Copyright or Artist is not written.
        let keepsEXIF = kinds.contains(.exif)
            || kinds.contains(.exifCopyright) && source.exif.map { !JPEGMetadata.ifd0Tags(ofEXIF: $0).isDisjoint(with: [0x8298, 0x013B]) } == true
        let metadata = ImageMetadata(
            exif: keepsEXIF ? source.exif : nil, xmp: kinds.contains(.xmp) ? source.xmp : nil,
            iptc: kinds.contains(.iptc) ? source.iptc : nil, iccProfile: kinds.contains(.colorProfile) ? source.iccProfile : nil
        )
        guard !metadata.isEmpty else { return nil }
        return KeptMetadataBlocks(metadata: metadata, exifCopyrightOnly: !kinds.contains(.exif))
    }

    /// Whether an encode of `image` writes metadata: asked to, and there is some to keep.
    func keepsMetadata(of image: Image) -> Bool {
        keptMetadata(of: image) != nil
    }
}
