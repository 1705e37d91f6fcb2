import CVipsGlue
import Foundation

/// The tags of an EXIF block as libexif (the parser libvips' loaders run) names and writes
/// them: canonical name ("DateTimeOriginal"), title ("Date and Time (Original)") and value
/// ("8.00 EV (f/16.0)", "Right-top", "72").
public enum ExifTags {
    public typealias Tag = (name: String, title: String, value: String)

    /// The tags of `block` (libvips' `exif-data`: "Exif\0\0" then a TIFF header, or the TIFF
    /// header alone, as a PNG's eXIf chunk holds it) in the file's order, the embedded
    /// thumbnail's left out; empty when libexif reads none. The block is the file's, so anything
    /// may be in it: libexif bounds every read by its length, as when libvips loads the file.
    public static func read(_ block: Data) -> [Tag] {
        let prefix = Data("Exif\0\0".utf8)
        let data = block.starts(with: prefix) ? block : prefix + block
        let collected = Collected()
        let context = Unmanaged.passUnretained(collected).toOpaque()
        _ = withExtendedLifetime(collected) {
            data.withUnsafeBytes { bytes in
                wi_exif_entries(bytes.baseAddress, bytes.count, { _, name, title, value, context in
                    guard let name, let title, let value, let context else { return }
                    let collected = Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue()
                    collected.tags.append((String(cString: name), String(cString: title), String(cString: value)))
                }, context)
            }
        }
        return collected.tags
    }

    /// The tags as the C callback hands them over, on this thread, within `read(_:)`.
    private final class Collected {
        var tags: [Tag] = []
    }
}
