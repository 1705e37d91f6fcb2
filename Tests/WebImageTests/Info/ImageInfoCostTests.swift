import Foundation
import Testing
import WebImage
import WebImageTestSupport

/// /info's defaults read headers, not pixels: on a 5250 x 3450 JPEG they need only the file's
/// first bytes. (What they cost against a thumbnail is a benchmark's figure, not a test's:
/// `webimage-benchmark info`.)
@Suite(.offThePool) struct ImageInfoCostTests {
    static let file = "sdwebimage/TestImageLarge.jpg"

    /// The file cut to its first 64 KiB (of 448 KB; its scans are past it) gives the same
    /// header facts and EXIF: none of them came from the pixels.
    @Test func theDefaultsNeedOnlyTheFilesFirstBytes() throws {
        let data = try TestImages.data(Self.file)
        let options = try InfoOptions(parsing: "size:0/cs:1/b:1/sf:1/pn:1/a:1")
        let whole = try ImageInfo(data: data, options: options)
        let cut = try ImageInfo(data: data.prefix(65_536), options: options)
        #expect(try cut.jsonData() == whole.jsonData())
        #expect(whole.pixelWidth == 5250 && whole.pixelHeight == 3450)
    }
}
