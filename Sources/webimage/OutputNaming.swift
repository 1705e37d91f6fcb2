import Foundation
import WebImage

/// Where `convert` writes each input's output, and in which format.
enum OutputNaming: Sendable {
    /// `convert IN OUT`: the one output file, in a folder that must exist.
    case file(String)
    /// `-o DIR`: `DIR/<subfolder>/<name>.<the format's extension>`, the subfolder being where a
    /// `--recursive` listing found the input.
    case folder(String)
    /// `--output PATTERN`, as vipsthumbnail's `-o`: `%s` the input's name without extension,
    /// `%d` its folder, `%e` its extension, `%%` a percent sign. A relative pattern without `%d`
    /// is taken from each input's folder (`tn_%s.jpg` lands beside the input); URLs' from the
    /// current folder.
    case pattern(String)

    /// Whether the output's folder is made when missing (not for `convert IN OUT`, as `cp`).
    var makesFolders: Bool {
        if case .file = self { false } else { true }
    }

    /// The output format: `explicit` (`--format`), else the output path's extension, else the
    /// input's format, by its extension or else `sniffed` from its bytes; nil when that needs
    /// the bytes (`sniffed` nil) or nothing tells it.
    func format(for input: BatchInput, explicit: ImageFormat?, sniffed: ImageFormat?) -> ImageFormat? {
        if let explicit { return explicit }
        let named: ImageFormat = switch self {
        case .file(let path): ImageFormat(fileExtension: (path as NSString).pathExtension)
        case .folder: .undefined
        case .pattern: ImageFormat(fileExtension: (path(for: input, format: .undefined) as NSString).pathExtension)
        }
        for candidate in [named, input.formatByExtension, sniffed ?? .undefined] where candidate != .undefined {
            return candidate
        }
        return nil
    }

    /// The output's path for `input` written as `format`.
    func path(for input: BatchInput, format: ImageFormat) -> String {
        switch self {
        case .file(let path):
            return path
        case .folder(let folder):
            let file = input.name + "." + format.fileExtension
            return [folder, input.subfolder, file].filter { !$0.isEmpty }.joined(separator: "/")
        case .pattern(let pattern):
            let expanded = Self.expand(pattern, input: input)
            guard !expanded.hasPrefix("/"), !pattern.contains("%d"), input.path != nil, input.folder != "." else {
                return expanded
            }
            return input.folder + "/" + expanded
        }
    }

    private static func expand(_ pattern: String, input: BatchInput) -> String {
        var result = ""
        var characters = pattern.makeIterator()
        while let character = characters.next() {
            guard character == "%" else {
                result.append(character)
                continue
            }
            switch characters.next() {
            case "s": result += input.name
            case "d": result += input.folder
            case "e": result += input.fileExtension
            case "%": result += "%"
            case let other?: result += "%" + String(other)
            case nil: result += "%"
            }
        }
        return result
    }
}
