import Foundation

/// The cache key of a thumbnail of the image under `key`: SDWebImage's `SDThumbnailedKeyForKey`.
public func thumbnailedKey(forKey key: String, thumbnailPixelSize: CGSize, preserveAspectRatio: Bool) -> String {
    let thumbnailKey = String(
        format: "Thumbnail({%f,%f},%d)", Double(thumbnailPixelSize.width), Double(thumbnailPixelSize.height),
        preserveAspectRatio ? 1 : 0
    )
    return transformedKey(forKey: key, transformerKey: thumbnailKey)
}

/// The cache key of the image under `key` after a transformer: `-` and the transformer key go
/// before the path extension; query, fragment and user info are kept. SDWebImage's `SDTransformedKeyForKey`.
public func transformedKey(forKey key: String, transformerKey: String) -> String {
    if let url = URL(string: key), !url.isFileURL,
       var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
        components.path = insert(transformerKey, beforeExtensionOf: components.path)
        if let string = components.string { return string }
    }
    return insert(transformerKey, beforeExtensionOf: key)
}

private func insert(_ transformerKey: String, beforeExtensionOf path: String) -> String {
    let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex, name.index(after: dot) != name.endIndex else {
        return path + "-" + transformerKey
    }
    let ext = name[name.index(after: dot)...]
    let stem = path.dropLast(ext.count + 1)
    return stem + "-" + transformerKey + "." + ext
}
