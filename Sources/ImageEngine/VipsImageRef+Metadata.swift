import CLibvips
import CVipsGlue
import Foundation

extension VipsImageRef {
    /// A header field holding bytes ("exif-data", "xmp-data", "iptc-data", "icc-profile-data"),
    /// if the image carries it.
    public func blob(named name: String) -> Data? {
        // The type checked first: a missing field would leave a message in libvips' shared
        // error buffer.
        guard vips_image_get_typeof(pointer, name) == vips_blob_get_type() else { return nil }
        var bytes: UnsafeRawPointer?
        var length = 0
        guard vips_image_get_blob(pointer, name, &bytes, &length) == 0, let bytes, length > 0 else { return nil }
        return Data(bytes: bytes, count: length)
    }

    /// A copy for a saver run with `strip=false`, carrying exactly this metadata: EXIF (parsed as
    /// libvips' loaders parse it, so that the saver keeps its tags; left out when libexif cannot
    /// read it), XMP, IPTC and the ICC profile, nil for none; the metadata this image carried
    /// (a loader's) removed; orientation 1, the pixels being upright. `exifCopyrightOnly` keeps
    /// of the EXIF its Copyright and Artist tags alone (the saver drops the tags it has no field for).
    public func replacingMetadata(
        exif: Data?, xmp: Data?, iptc: Data?, iccProfile: Data?, exifCopyrightOnly: Bool = false
    ) throws(VipsError) -> VipsImageRef {
        let blobs = [exif, xmp, iptc, iccProfile].map { $0 ?? Data() }
        let result = blobs[0].withUnsafeBytes { exif in
            blobs[1].withUnsafeBytes { xmp in
                blobs[2].withUnsafeBytes { iptc in
                    blobs[3].withUnsafeBytes { icc in
                        wi_with_metadata(
                            pointer, exif.baseAddress, exif.count, xmp.baseAddress, xmp.count,
                            iptc.baseAddress, iptc.count, icc.baseAddress, icc.count, exifCopyrightOnly ? 1 : 0
                        )
                    }
                }
            }
        }
        guard let result else { throw Vips.lastError(or: "copy failed") }
        return VipsImageRef(result)
    }
}

extension Vips {
    /// One of libvips' built-in ICC profiles: "srgb", "p3", "cmyk".
    public static func builtInProfile(_ name: String) throws(VipsError) -> Data {
        try start()
        var length = 0
        guard let bytes = wi_profile_copy(name, &length) else { throw lastError(or: "no profile \(name)") }
        defer { g_free(bytes) }
        return Data(bytes: bytes, count: length)
    }
}
