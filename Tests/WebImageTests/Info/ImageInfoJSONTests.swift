import Foundation
import Testing
import WebImage
import WebImageTestSupport

/// The JSON an `ImageInfo` writes: imgproxy Pro's /info field names and shapes
/// (docs/usage/getting_info.mdx of imgproxy-docs), each field when its option is on.
@Suite(.offThePool) struct ImageInfoJSONTests {
    static func object(_ info: ImageInfo) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: info.jsonData()) as? [String: Any])
    }

    /// imgproxy's defaults: size, format, dimensions, EXIF by title.
    @Test func defaultsGiveSizeFormatDimensionsAndEXIF() throws {
        let data = try TestImages.data("exif-orientation/Landscape_6.jpg")
        let json = try Self.object(try ImageInfo(data: data))
        #expect(Set(json.keys) == ["size", "format", "mime_type", "width", "height", "orientation", "exif"])
        #expect(json["size"] as? Int == data.count)
        #expect(json["format"] as? String == "jpeg" && json["mime_type"] as? String == "image/jpeg")
        #expect(json["width"] as? Int == 1800 && json["height"] as? Int == 1200 && json["orientation"] as? Int == 6)
        let exif = try #require(json["exif"] as? [String: String])
        #expect(exif["Orientation"] == "Right-top" && exif["X-Resolution"] == "72" && exif["Resolution Unit"] == "Inch", "\(exif)")
        let text = String(decoding: try ImageInfo(data: data).jsonData(), as: UTF8.self)
        #expect(text.contains("\"mime_type\":\"image/jpeg\""), "slashes as Go writes them: \(text)")
    }

    /// Options turned off leave their fields out; `exif:1:1` names the tags canonically.
    @Test func optionsChooseTheFields() throws {
        let data = try TestImages.data("exif-orientation/Landscape_6.jpg")
        let json = try Self.object(try ImageInfo(data: data, options: InfoOptions(parsing: "s:0/f:0/exif:1:1")))
        #expect(Set(json.keys) == ["width", "height", "orientation", "exif"])
        let exif = try #require(json["exif"] as? [String: String])
        #expect(exif["XResolution"] == "72" && exif["ResolutionUnit"] == "Inch" && exif["X-Resolution"] == nil)
        let none = try Self.object(try ImageInfo(data: data, options: InfoOptions(parsing: "size:false/format:f/dimensions:0/exif:0")))
        #expect(none.isEmpty, "\(none)")
    }

    /// Every other field on one WebP with transparency, in /info's shapes, and the analyses'
    /// values those of `ImageAnalysis` on the same file.
    @Test func everyFieldInItsShape() throws {
        let data = try TestImages.data("webp/lossy_alpha1.webp")
        let options = try InfoOptions(parsing: "cs:1/b:1/sf:1/pn:1/a:1:1/chs:md5:sha256/bh:4:3/th:1/ph:1/avg:1/dc:1:1/p:4")
        let json = try Self.object(try ImageInfo(data: data, options: options))
        #expect(json["colorspace"] as? String == "srgb" && json["bands"] as? Int == 4 && json["sample_format"] as? String == "uchar")
        #expect(json["pages_number"] as? Int == 1 && json["alpha"] as? Bool == true && json["transparent"] as? Bool == true)
        let hashsums = try #require(json["hashsums"] as? [String: String])
        #expect(Set(hashsums.keys) == ["md5", "sha256"] && hashsums["md5"]?.count == 32 && hashsums["sha256"]?.count == 64)

        let analysis = try ImageAnalysis(data: data)
        #expect(json["blurhash"] as? String == (try analysis.blurHash(xComponents: 4, yComponents: 3)).string)
        let thumbHash = try #require(json["thumb_hash"] as? String)
        #expect(thumbHash == analysis.thumbHash.data.map { String(format: "%02X", $0) }.joined())
        #expect(json["perceptual_hash"] as? String == analysis.perceptualHash.hexString)
        let average = try #require(json["average"] as? [String: Int])
        let expected = analysis.averageColor()
        #expect(average == ["R": Int(expected.red), "G": Int(expected.green), "B": Int(expected.blue), "A": Int(expected.alpha)])
        let palette = try #require(json["palette"] as? [[String: Int]])
        #expect((1...4).contains(palette.count) && palette.allSatisfy { Set($0.keys) == ["R", "G", "B", "A"] })
        let dominant = try #require(json["dominant_colors"] as? [String: [String: Int]])
        // Built missing: all six, without alpha.
        #expect(Set(dominant.keys) == ["vibrant", "light_vibrant", "dark_vibrant", "muted", "light_muted", "dark_muted"])
        #expect(dominant.values.allSatisfy { Set($0.keys) == ["R", "G", "B"] })
    }
}
