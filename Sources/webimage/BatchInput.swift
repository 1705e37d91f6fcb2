import Foundation
import WebImage

/// One image of a `convert` run: a file or a URL, with the names its output pattern uses.
struct BatchInput: Sendable, Equatable {
    /// The input as the user gave it (or as a folder listing found it): failure lines name it.
    let argument: String
    /// The file's path, or nil for a URL.
    let path: String?
    /// The folder below the folder argument it was found in ("" for direct children and for
    /// inputs named one by one): `-o DIR` keeps it, so a tree keeps its shape.
    let subfolder: String

    init(argument: String, subfolder: String = "") {
        self.argument = argument
        self.subfolder = subfolder
        let lowercased = argument.lowercased()
        if lowercased.hasPrefix("http://") || lowercased.hasPrefix("https://") {
            path = nil
        } else if lowercased.hasPrefix("file://") {
            path = URL(string: argument)?.path ?? argument
        } else {
            path = argument
        }
    }

    /// The name without its extension (`%s`): a URL's last path component ("image" when it has none).
    var name: String {
        let last = lastComponent
        let stem = (last as NSString).deletingPathExtension
        return stem.isEmpty ? "image" : stem
    }

    /// The extension as given, without its dot (`%e`); "" when there is none.
    var fileExtension: String { (lastComponent as NSString).pathExtension }

    /// The file's folder as given (`%d`): "." for a bare file name and for URLs.
    var folder: String {
        guard let path else { return "." }
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    /// The format its extension names, or `.undefined`.
    var formatByExtension: ImageFormat { ImageFormat(fileExtension: fileExtension) }

    private var lastComponent: String {
        if let path { return (path as NSString).lastPathComponent }
        return URL(string: argument)?.lastPathComponent ?? ""
    }
}
