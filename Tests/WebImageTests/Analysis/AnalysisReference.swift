import Foundation
import Testing
import WebImage

/// The reference implementations the analyses are checked against: Tests/Analysis/analysis_reference.py
/// (BlurHash's and ThumbHash's reference code, imagehash, Pillow, from PyPI) in the virtual
/// environment scripts/analysis-venv.sh makes (/opt/analysis-venv or
/// $WEBIMAGE_TEST_ANALYSIS_VENV), run once per test as a child process with every task at once.
enum AnalysisReference {
    static let venv = URL(fileURLWithPath: ProcessInfo.processInfo.environment["WEBIMAGE_TEST_ANALYSIS_VENV"] ?? "/opt/analysis-venv")
    /// Tests/Analysis/analysis_reference.py (this file is Tests/WebImageTests/Analysis/AnalysisReference.swift).
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Analysis/analysis_reference.py")

    /// One question for the script (the fields its kind reads; see the script's docstring).
    struct Task: Encodable {
        var kind: String
        var path: String?
        var x: Int?
        var y: Int?
        var ours: String?
        var rgba: String?
        var width: Int?
        var height: Int?
        var count: Int?

        static func blurHash(_ file: String, x: Int, y: Int, ours: BlurHash) -> Task {
            Task(kind: "blurhash", path: TestImages.url(file).path, x: x, y: y, ours: ours.string)
        }

        static func thumbHash(_ file: String, ours: ThumbHash) -> Task {
            Task(kind: "thumbhash", path: TestImages.url(file).path, ours: ours.base64)
        }

        static func mean(_ file: String) -> Task { Task(kind: "mean", path: TestImages.url(file).path) }
        static func perceptualHash(_ file: String) -> Task { Task(kind: "phash", path: TestImages.url(file).path) }

        static func palette(rgbaFile: URL, width: Int, height: Int, count: Int) -> Task {
            Task(kind: "palette", rgba: rgbaFile.path, width: width, height: height, count: count)
        }
    }

    /// A decoded ThumbHash.
    struct Decoded: Decodable {
        var width: Int
        var height: Int
        var rgba: [UInt8]
    }

    /// One answer: the fields of its task's kind are set.
    struct Answer: Decodable {
        // blurhash: the reference's hash and both decoded at 32x32 (RGB).
        var reference: String?
        var referenceDecodedRGB: [UInt8]?
        var oursDecodedRGB: [UInt8]?
        // thumbhash: both decoded at the reference's size (RGBA).
        var referenceDecodedRGBA: Decoded?
        var oursDecodedRGBA: Decoded?
        // mean
        var red: Double?, green: Double?, blue: Double?
        // palette
        var colors: [[UInt8]]?
        // phash
        var hash: String?

        enum CodingKeys: String, CodingKey {
            case reference, referenceDecoded, oursDecoded, red, green, blue, colors, hash
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            reference = try container.decodeIfPresent(String.self, forKey: .reference)
            // The decoded images are RGB lists (BlurHash) or objects with a size (ThumbHash).
            referenceDecodedRGB = try? container.decodeIfPresent([UInt8].self, forKey: .referenceDecoded)
            oursDecodedRGB = try? container.decodeIfPresent([UInt8].self, forKey: .oursDecoded)
            referenceDecodedRGBA = try? container.decodeIfPresent(Decoded.self, forKey: .referenceDecoded)
            oursDecodedRGBA = try? container.decodeIfPresent(Decoded.self, forKey: .oursDecoded)
            red = try container.decodeIfPresent(Double.self, forKey: .red)
            green = try container.decodeIfPresent(Double.self, forKey: .green)
            blue = try container.decodeIfPresent(Double.self, forKey: .blue)
            colors = try container.decodeIfPresent([[UInt8]].self, forKey: .colors)
            hash = try container.decodeIfPresent(String.self, forKey: .hash)
        }
    }

    /// The script's answers to `tasks`, in order (nil for a mean of an image with no visible pixel).
    static func answers(_ tasks: [Task]) async throws -> [Answer?] {
        let python = venv.appendingPathComponent("bin/python")
        try #require(FileManager.default.isExecutableFile(atPath: python.path), "the analysis references: bash scripts/setup.sh installs them (scripts/analysis-venv.sh)")
        let input = try JSONEncoder().encode(tasks)
        let result = try await ChildProcess.run(executable: python, [script.path], input: input)
        try #require(result.status == 0, "analysis_reference.py: \(result.standardError)")
        let answers = try JSONDecoder().decode([Answer?].self, from: Data(result.standardOutput.utf8))
        try #require(answers.count == tasks.count)
        return answers
    }

    /// The mean absolute difference of two equally long lists of 8-bit samples, in levels.
    static func meanDifference(_ first: [UInt8], _ second: [UInt8]) -> Double {
        guard first.count == second.count, !first.isEmpty else { return .infinity }
        return Double(zip(first, second).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(first.count)
    }

    /// A temporary file of `bytes`, removed after `body`.
    static func withTemporaryFile<T>(_ bytes: [UInt8], _ body: (URL) async throws -> T) async throws -> T {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-analysis-" + UUID().uuidString)
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try await body(url)
    }
}
