import ArgumentParser
import Foundation

/// Writes the commands' output files, with failures as one line in words naming the path.
enum OutputFile {
    /// Writes `bytes` to `url` whole (a temporary file renamed over it), making `folder` first
    /// when given. Blocks: call it on the blocking pool.
    static func write(_ bytes: Data, to url: URL, makingFolder folder: URL? = nil) throws {
        do {
            if let folder { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
            try bytes.write(to: url, options: .atomic)
        } catch {
            throw ValidationError("cannot write \(url.path): \((error as? CocoaError).map(describe) ?? "\(error)")")
        }
    }

    private static func describe(_ error: CocoaError) -> String {
        switch error.code {
        case .fileWriteNoPermission: "permission denied"
        case .fileWriteOutOfSpace: "the disk is full"
        case .fileNoSuchFile, .fileWriteInvalidFileName: "no such folder"
        default: error.localizedDescription
        }
    }
}
