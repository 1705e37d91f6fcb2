import Foundation
import Glibc
import WebImage

/// The folder `local://` sources are read from (`WEBIMAGE_LOCAL_FILESYSTEM_ROOT`). A source path
/// is taken relative to it: `..` anywhere, and any path whose real location (symbolic links
/// resolved) is not inside the root's real location, are refused; so are paths naming
/// something other than a regular file.
struct LocalSourceRoot: Sendable {
    /// The root with its symbolic links resolved.
    let realPath: String

    /// nil when `path` does not name a folder.
    init?(path: String) {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        var info = stat()
        let text = String(cString: resolved)
        guard stat(text, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return nil }
        realPath = text
    }

    /// The bytes of `path` (as written after `local://`, percent-escapes undone by the parser),
    /// at most `maximumBytes`, with an entity tag from the file's modification time and size,
    /// as nginx makes one (so that no digest of the bytes is computed a request, and servers
    /// holding the same files give the same tags).
    func read(_ path: String, maximumBytes: Int) async throws -> SourceImage {
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        guard !components.isEmpty, !components.contains(where: { $0 == ".." || $0 == "." }), !path.contains("\0") else {
            throw ImageServerError.invalidSource("local source \(path): not a path inside the root")
        }
        let candidate = realPath + "/" + components.joined(separator: "/")
        let root = realPath
        return try await BlockingPool.run { () throws -> SourceImage in
            guard let resolved = realpath(candidate, nil) else {
                throw ImageServerError.invalidSource("local source \(path): not found")
            }
            let file = String(cString: resolved)
            free(resolved)
            guard file.hasPrefix(root == "/" ? "/" : root + "/") else {
                throw ImageServerError.sourceRefused("local source \(path): resolves outside the root")
            }
            let descriptor = open(file, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw ImageServerError.invalidSource("local source \(path): cannot open (errno \(errno))") }
            defer { close(descriptor) }
            var info = stat()
            guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                throw ImageServerError.invalidSource("local source \(path): not a regular file")
            }
            guard Int(info.st_size) <= maximumBytes else {
                throw ImageServerError.sourceTooLarge("local source \(path): \(info.st_size) bytes")
            }
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
            let data = try handle.readToEnd() ?? Data()
            guard data.count <= maximumBytes else {
                throw ImageServerError.sourceTooLarge("local source \(path): grew past the limit")
            }
            let tag = "\"" + String(info.st_mtim.tv_sec, radix: 16) + "-" + String(data.count, radix: 16) + "\""
            return SourceImage(data: data, validators: HTTPValidators(entityTag: tag))
        }
    }
}
