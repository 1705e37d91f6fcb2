import Foundation
import ImageEngine
import Testing
import WebImage
import WebImageTestSupport

/// /info's defaults read headers, not pixels: on a 5250 x 3450 JPEG they need only the file's
/// first bytes and a fraction of the CPU time of its smallest useful decode.
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

    /// The defaults' thread CPU time under 0.3x that of a 300 x 300 thumbnail decode (the
    /// issue's bound), the median of five runs each.
    @Test func theDefaultsCostUnderAThirdOfAThumbnail() throws {
        let data = try TestImages.data(Self.file)
        var thumbnail = ImageCoderOptions()
        thumbnail.decodeThumbnailPixelSize = CGSize(width: 300, height: 300)
        func median(_ body: () throws -> Void) rethrows -> Duration {
            var times: [Duration] = []
            for _ in 0..<5 {
                let start = WorkBudget.threadCPUTime
                try body()
                times.append(WorkBudget.threadCPUTime - start)
            }
            return times.sorted()[2]
        }
        let info = try median { _ = try ImageInfo(data: data).jsonData() }
        let decode = try median { _ = try ImageCodersManager.shared.decode(data, options: thumbnail) }
        #expect(info < decode * 0.3, "info \(info), 300x300 thumbnail \(decode)")
    }
}
