import Foundation
import Testing

/// exiftool (Debian's libimage-exiftool-perl), the reference for what a file's header and
/// metadata say: its tags of one file, by group and name ("EXIF:Orientation"), values as text.
enum Exiftool {
    static let executable = URL(fileURLWithPath: "/usr/bin/exiftool")

    /// `exiftool -j -G0` (with `-n`, numbers as stored rather than described; with `-G1` for
    /// `specificGroups`, "XMP-dc:Format") of `file`.
    static func tags(of file: URL, numeric: Bool = true, specificGroups: Bool = false) async throws -> [String: String] {
        let arguments = ["-j", specificGroups ? "-G1" : "-G0"] + (numeric ? ["-n"] : []) + [file.path]
        let result = try await ChildProcess.run(executable: executable, arguments)
        try #require(result.status == 0, "\(result.standardError)")
        let objects = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]]
        let tags = try #require(objects?.first)
        return tags.mapValues { value in
            (value as? [Any]).map { $0.map { "\($0)" }.joined(separator: "\u{1F}") } ?? "\(value)"
        }
    }

    /// The items of a list value `tags` holds.
    static func list(_ value: String?) -> [String] {
        value.map { $0.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init) } ?? []
    }

    /// The tag names of `group` ("EXIF", "XMP").
    static func names(in tags: [String: String], group: String) -> Set<String> {
        Set(tags.keys.filter { $0.hasPrefix(group + ":") }.map { String($0.dropFirst(group.count + 1)) })
    }

    /// Width and height as stored (`Composite:ImageSize`, "W H").
    static func storedSize(_ tags: [String: String]) throws -> (width: Int, height: Int) {
        let sides = try #require(tags["Composite:ImageSize"]).split(whereSeparator: { $0 == " " || $0 == "x" }).compactMap { Int($0) }
        try #require(sides.count == 2)
        return (sides[0], sides[1])
    }
}
