import ArgumentParser
import Foundation

/// Reads a command-line input given as a path or a file:// URL.
enum InputFile {
    static func read(_ argument: String) throws -> Data {
        let url = argument.hasPrefix("file://") ? URL(string: argument) : URL(fileURLWithPath: argument)
        guard let url, url.isFileURL else {
            throw ValidationError("\(argument): only files and file:// URLs can be read (HTTP loading is not built yet)")
        }
        return try Data(contentsOf: url)
    }
}
