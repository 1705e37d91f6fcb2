import Foundation
import Testing
import WebImage

/// The repository's test images (Tests/Images, or $WEBIMAGE_TEST_DATA): real files from public
/// projects, each folder with its licence.
enum TestImages {
    static let folder: URL = {
        if let path = ProcessInfo.processInfo.environment["WEBIMAGE_TEST_DATA"] {
            return URL(fileURLWithPath: path)
        }
        // Tests/WebImageTests/TestImages.swift -> Tests/Images
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Images")
    }()

    static func url(_ name: String) -> URL {
        folder.appendingPathComponent(name)
    }

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: url(name))
    }

    /// A file of Tests/WebImageTests/Fixtures: derived from the shared images for cases they do
    /// not cover (how each was made is in the folder's README).
    static func fixture(_ name: String) throws -> Data {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        return try Data(contentsOf: folder.appendingPathComponent(name))
    }

    /// Decodes with the shared coders, failing the test with the reason when it cannot.
    static func decoded(_ data: Data) throws -> WebImage.Image {
        try ImageCodersManager.shared.decode(data, options: ImageCoderOptions())
    }

    /// Image files (not licences or notes) in a subfolder, sorted.
    static func files(in subfolder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url(subfolder).path)
            .filter { !["LICENSE", "README", "LICENSE.txt"].contains($0) && !$0.hasSuffix(".txt") }
            .sorted()
            .map { "\(subfolder)/\($0)" }
    }
}
