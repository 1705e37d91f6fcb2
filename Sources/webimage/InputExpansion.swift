import Foundation
import WebImage

/// `convert`'s arguments as a list of images: files, folders (their images; with `recursive`,
/// their subfolders' too), globs (for patterns the shell did not expand), URLs, and `-` (a list
/// of paths or URLs on standard input, one a line). Blocks: call it on the blocking pool.
struct InputExpansion {
    /// The images, in the order given (a folder's sorted by path), each once.
    private(set) var inputs: [BatchInput] = []
    /// The arguments that named no image, with the reason in words.
    private(set) var failures: [(argument: String, reason: String)] = []
    private var seen: Set<String> = []
    private let recursive: Bool

    init(_ arguments: [String], recursive: Bool, standardInput: () -> Data) {
        self.recursive = recursive
        for argument in arguments {
            guard argument == "-" else {
                add(argument, globbing: true)
                continue
            }
            let lines = String(decoding: standardInput(), as: UTF8.self).split(whereSeparator: \.isNewline)
            for line in lines.map({ $0.trimmingCharacters(in: .whitespaces) }) where !line.isEmpty {
                add(line, globbing: false)
            }
        }
    }

    private mutating func add(_ argument: String, globbing: Bool) {
        let input = BatchInput(argument: argument)
        guard let path = input.path else { return append(input) }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            // A file:// folder's files are named by their paths.
            return isFolder.boolValue ? addFolder(path == argument ? argument : path, path: path) : append(input)
        }
        guard globbing, path.contains(where: { "*?[".contains($0) }) else {
            // Reading it says why (no such file, permission denied), as for a single input.
            return append(input)
        }
        let matches = Self.glob(path)
        guard !matches.isEmpty else { return failures.append((argument, "no file matches")) }
        for match in matches { add(match, globbing: false) }
    }

    /// The folder's image files (those whose extension names a format; hidden ones left out),
    /// sorted, each remembering the subfolder it was found in.
    private mutating func addFolder(_ argument: String, path: String) {
        let root = URL(fileURLWithPath: path, isDirectory: true)
        var options: FileManager.DirectoryEnumerationOptions = [.skipsHiddenFiles]
        if !recursive { options.insert(.skipsSubdirectoryDescendants) }
        var listingError: (any Error)?
        let enumerator = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.isRegularFileKey], options: options
        ) { _, error in
            listingError = error
            return false
        }
        var found: [(relative: String, subfolder: String)] = []
        let rootPath = root.standardizedFileURL.path
        while let url = enumerator?.nextObject() as? URL {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                  ImageFormat(fileExtension: url.pathExtension) != .undefined else { continue }
            let relative = String(url.standardizedFileURL.path.dropFirst(rootPath.count).drop { $0 == "/" })
            found.append((relative, (relative as NSString).deletingLastPathComponent))
        }
        if enumerator == nil || listingError != nil {
            return failures.append((argument, "cannot list the folder (permission denied?)"))
        }
        let prefix = argument.hasSuffix("/") ? argument : argument + "/"
        for file in found.sorted(by: { $0.relative < $1.relative }) {
            append(BatchInput(argument: prefix + file.relative, subfolder: file.subfolder))
        }
    }

    private mutating func append(_ input: BatchInput) {
        let identity = input.path.map { URL(fileURLWithPath: $0).standardizedFileURL.path } ?? input.argument
        if seen.insert(identity).inserted { inputs.append(input) }
    }

    /// The paths `pattern` matches (glob(3): `*`, `?`, `[...]`), sorted.
    private static func glob(_ pattern: String) -> [String] {
        var matches = glob_t()
        defer { globfree(&matches) }
        guard Glibc.glob(pattern, 0, nil, &matches) == 0 else { return [] }
        return (0..<Int(matches.gl_pathc)).compactMap { matches.gl_pathv[$0].map { String(cString: $0) } }
    }
}
