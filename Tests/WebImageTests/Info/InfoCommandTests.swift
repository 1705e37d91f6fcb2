import Foundation
import Testing
import WebImage
import WebImageTestSupport

/// `webimage info --json` as a user runs it: /info's JSON, one object or an array.
@Suite(.offThePool) struct InfoCommandTests {
    static func path(_ name: String) -> String { TestImages.url(name).path }

    /// One file: the JSON object the library writes for it.
    @Test func oneFilePrintsItsObject() async throws {
        let file = "exif-orientation/Landscape_6.jpg"
        let result = try await ChildProcess.run("webimage", ["info", "--json", Self.path(file)])
        #expect(result.status == 0, "\(result.standardError)")
        let printed = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? NSDictionary)
        let library = try #require(try JSONSerialization.jsonObject(with: ImageInfo(data: TestImages.data(file)).jsonData()) as? NSDictionary)
        #expect(printed == library)
        #expect(printed["width"] as? Int == 1800 && printed["orientation"] as? Int == 6)
    }

    /// Several files with options: an array in their order, the options applied to each.
    @Test func severalFilesPrintAnArrayWithTheOptions() async throws {
        let files = ["photos/rocket.jpg", "sdwebimage/TestImageAnimated.webp"]
        let result = try await ChildProcess.run("webimage", ["info", "--json", "--options", "pn:1/bh:4:3/chs:sha256/exif:0"] + files.map(Self.path))
        #expect(result.status == 0, "\(result.standardError)")
        let printed = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
        #expect(printed.count == 2)
        #expect(printed.first?["pages_number"] as? Int == 1 && printed.last?["pages_number"] as? Int == 8)
        #expect(printed.allSatisfy { ($0["blurhash"] as? String)?.count == 4 + 2 * 4 * 3 && $0["exif"] == nil })
        let sha = try await ChildProcess.run(executable: URL(fileURLWithPath: "/usr/bin/sha256sum"), [Self.path(files[0])])
        #expect((printed.first?["hashsums"] as? [String: String])?["sha256"] == sha.standardOutput.split(separator: " ").first.map(String.init))
    }

    /// A bad option string stops the command before it reads anything (usage error, 64); a file
    /// it cannot read is reported while the others are printed, and the status says so.
    @Test func badOptionsAndUnreadableFiles() async throws {
        let bad = try await ChildProcess.run("webimage", ["info", "--json", "--options", "bh:12:3", Self.path("photos/rocket.jpg")])
        #expect(bad.status == 64 && bad.standardOutput.isEmpty && bad.standardError.contains("bh"), "\(bad.standardError)")
        let withoutJSON = try await ChildProcess.run("webimage", ["info", "--options", "th:1", Self.path("photos/rocket.jpg")])
        #expect(withoutJSON.status == 64 && withoutJSON.standardError.contains("--json"))
        let missing = TestImages.url("photos/no-such-file.jpg").path
        let mixed = try await ChildProcess.run("webimage", ["info", "--json", Self.path("photos/rocket.jpg"), missing])
        #expect(mixed.status != 0 && mixed.standardError.contains("no-such-file.jpg"))
        let printed = try JSONSerialization.jsonObject(with: Data(mixed.standardOutput.utf8)) as? [[String: Any]]
        #expect(printed?.count == 1 && printed?.first?["width"] as? Int == 640)
    }
}
