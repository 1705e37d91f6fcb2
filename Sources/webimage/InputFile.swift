import AsyncHTTPClient
import ArgumentParser
import Foundation
import NIOFoundationCompat
import WebImage

/// Reads a command-line input given as a path, a file:// URL or an http(s):// URL.
enum InputFile {
    /// Bodies larger than this are refused rather than held in memory.
    static let maxDownloadBytes = 256 * 1024 * 1024

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

    /// GET `address` (redirects followed), 30 s for the whole exchange; a status outside 2xx is an error.
    private static func download(_ address: String) async throws -> Data {
        let request = HTTPClientRequest(url: address)
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        guard (200..<300).contains(response.status.code) else {
            throw ValidationError("HTTP \(response.status.code) \(response.status.reasonPhrase)")
        }
        let body = try await response.body.collect(upTo: maxDownloadBytes)
        return Data(buffer: body)
    }
}
