import Foundation

/// The scale a file name gives: SDWebImage's `SDImageScaleFactorForKey`, for downloads, disk
/// cache hits and `AnimatedImage(contentsOfFile:)` alike.
enum ImageScaleFactor {
    /// 2 or 3 when the stem of the last path component ends in `@2x` / `@3x` (percent-encoded
    /// too), else 1. `name` is a URL, a cache key or a file path; a URL's query and fragment
    /// are not read.
    static func fromName(_ name: String) -> Double {
        // Most names have no `@`: no URL parsed for them (every download asks this of its URL).
        guard name.utf8.contains(UInt8(ascii: "@")) || name.contains("%40") else { return 1 }
        let path = URL(string: name)?.path ?? name
        let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        if stem.hasSuffix("@2x") { return 2 }
        if stem.hasSuffix("@3x") { return 3 }
        return 1
    }
}
