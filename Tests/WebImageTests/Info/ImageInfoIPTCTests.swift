import Foundation
import Testing
import WebImage
import WebImageTestSupport

/// /info's `iptc`: the IPTC-IIM datasets by title, as imgproxy writes them, against what exiftool
/// wrote into a copy of a photo and reads back.
@Suite(.offThePool) struct ImageInfoIPTCTests {
    /// A copy of rocket.jpg with IPTC datasets written by exiftool (in a Photoshop APP13 block,
    /// as photo tools write them): a name, two keywords, two by-lines, a caption, an urgency.
    static func photoWithIPTC() async throws -> (data: Data, exiftool: [String: String]) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-iptc-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("rocket-iptc.jpg")
        let result = try await ChildProcess.run(executable: Exiftool.executable, [
            "-o", output.path, "-IPTC:ObjectName=Launch", "-IPTC:Keywords=rocket", "-IPTC:Keywords=space",
            "-IPTC:By-line=NASA", "-IPTC:By-line=Bill Ingalls", "-IPTC:Caption-Abstract=A rocket, ✓ in UTF-8", "-IPTC:Urgency=5",
            "-IPTC:CodedCharacterSet=UTF8", TestImages.url("photos/rocket.jpg").path,
        ])
        try #require(result.status == 0, "\(result.standardError)")
        return (try Data(contentsOf: output), try await Exiftool.tags(of: output))
    }

    @Test func theDatasetsByTitleWithImgproxysNameAndCaption() async throws {
        let (data, exiftool) = try await Self.photoWithIPTC()
        let json = try #require(try JSONSerialization.jsonObject(with: ImageInfo(data: data).jsonData()) as? [String: Any])
        let iptc = try #require(json["iptc"] as? [String: Any], "\(json.keys.sorted())")
        // Each as exiftool reads it back; a repeatable dataset as an array, in the file's order.
        #expect(iptc["Object Name"] as? String == exiftool["IPTC:ObjectName"] && iptc["Name"] as? String == "Launch")
        #expect(iptc["Keywords"] as? [String] == Exiftool.list(exiftool["IPTC:Keywords"]) && iptc["Keywords"] as? [String] == ["rocket", "space"])
        #expect(iptc["By-line"] as? [String] == Exiftool.list(exiftool["IPTC:By-line"]) && (iptc["By-line"] as? [String])?.count == 2)
        #expect(iptc["Caption/Abstract"] as? String == "A rocket, ✓ in UTF-8" && iptc["Caption"] as? String == exiftool["IPTC:Caption-Abstract"])
        #expect(iptc["Urgency"] as? String == exiftool["IPTC:Urgency"])
        // Integers (a short) as numbers; bytes (the coded character set, ESC % G) as base64.
        #expect(iptc["Record Version"] as? Int == Int(exiftool["IPTC:ApplicationRecordVersion"] ?? ""))
        #expect(iptc["Coded Character Set"] as? String == Data([0x1B, 0x25, 0x47]).base64EncodedString())
        // iptc:0 leaves it out; a file without IPTC has none.
        let off = try #require(try JSONSerialization.jsonObject(with: ImageInfo(data: data, options: InfoOptions(parsing: "iptc:0")).jsonData()) as? [String: Any])
        #expect(off["iptc"] == nil)
        let plain = try #require(try JSONSerialization.jsonObject(with: ImageInfo(data: TestImages.data("photos/rocket.jpg")).jsonData()) as? [String: Any])
        #expect(plain["iptc"] == nil)
    }

    /// Cut anywhere, the block gives what it still holds whole or nothing, never a crash; a
    /// dataset whose size runs past the end is cut as imgproxy cuts it, and left out when that
    /// puts it outside its sizes.
    @Test func aCutBlockGivesWhatItHolds() async throws {
        let (data, _) = try await Self.photoWithIPTC()
        let info = try ImageInfo(data: data)
        let whole = try #require(info.iptc)
        for length in stride(from: 0, through: whole.count, by: 7) {
            var cut = info
            cut.iptc = whole.prefix(length)
            let json = try #require(try JSONSerialization.jsonObject(with: cut.jsonData()) as? [String: Any])
            if let iptc = json["iptc"] as? [String: Any] { #expect(!iptc.isEmpty) }
        }
    }
}
