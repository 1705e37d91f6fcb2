import ArgumentParser
import Foundation
import WebImage

/// Reads a command-line input given as a path, a file:// URL or an http(s):// URL.
enum InputFile {
    static func read(_ argument: String) async throws -> Data {
        let lowercased = argument.lowercased()
        if lowercased.hasPrefix("http://") || lowercased.hasPrefix("https://") {
            return try await download(argument)
        }
        let url = lowercased.hasPrefix("file://") ? URL(string: argument) : URL(fileURLWithPath: argument)
        guard let url, url.isFileURL else {
            throw ValidationError("\(argument): not a file, file:// or http(s):// URL")
        }
        do {
            // File system calls block: all of them on the blocking pool.
            return try await BlockingPool.run {
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
                    throw ValidationError("no such file")
                }
                guard !isFolder.boolValue else { throw ValidationError("a folder, not a file") }
                return try Data(contentsOf: url)
            }
        } catch let error as CocoaError {
            throw ValidationError(error.code == .fileReadNoPermission ? "permission denied" : error.localizedDescription)
        }
    }

    /// Downloads `address` with `ImageDownloader.shared` (its defaults: redirects followed, 15 s
    /// without data is a timeout, transient failures retried twice, at most 100 MB).
    private static func download(_ address: String) async throws -> Data {
        guard let url = URL(string: address) else { throw ValidationError("not a valid URL") }
        do {
            return try await ImageDownloader.shared.downloadData(with: url).data
        } catch let error as URLError {
            throw ValidationError(describe(error))
        } catch {
            throw ValidationError(error.localizedDescription)
        }
    }

    /// A transport failure in words.
    static func describe(_ error: URLError) -> String {
        switch error.code {
        case .timedOut: "timed out"
        case .cannotConnectToHost: "could not connect (connection refused or host unreachable)"
        case .cannotFindHost: "unknown host"
        case .networkConnectionLost: "the connection was lost"
        case .secureConnectionFailed: "TLS failed (certificate or handshake)"
        case .httpTooManyRedirects: "too many redirects, or a redirect loop"
        case .dataLengthExceedsMaximum: "the response is too large"
        case .unsupportedURL: "unsupported URL"
        case .fileDoesNotExist: "no such file"
        case .noPermissionsToReadFile: "permission denied"
        default: "download failed (\(error.code.rawValue))"
        }
    }
}
