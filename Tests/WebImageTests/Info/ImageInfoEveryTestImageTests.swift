import Foundation
import Testing
import WebImage
import WebImageTestSupport

/// Every file of Tests/Images, the fuzzers' regressions and PngSuite's broken files among them:
/// the info reads exactly when the header does, with the same facts, and a refusal is typed.
@Suite(.offThePool) struct ImageInfoEveryTestImageTests {
    static let folders = ["exif-orientation", "fuzz-regressions", "hdr", "libjpeg-turbo", "photos", "pngsuite", "sdwebimage", "webp"]

    @Test(arguments: folders)
    func infoReadsWhatTheHeaderReads(folder: String) throws {
        // ImageHeader(probing:)'s limits: the header of any size is read.
        var unlimited = ImageCoderOptions()
        unlimited.decodeMaxPixelCount = .max
        unlimited.decodeMaxFrameCount = .max
        unlimited.decodeMaxTotalPixelCount = .max
        let options = try InfoOptions(parsing: "cs:1/b:1/sf:1/pn:1/a:1/chs:md5/exif:1:1")
        var read = 0
        for file in try TestImages.files(in: folder) where !file.hasSuffix(".md") {
            let data = try TestImages.data(file)
            let header = try? ImageHeader(probing: data)
            do throws(ImageInfoError) {
                let info = try ImageInfo(data: data, options: options, coderOptions: unlimited)
                read += 1
                #expect(header.map { ($0.pixelWidth, $0.pixelHeight, $0.frameCount) == (info.pixelWidth, info.pixelHeight, info.pagesNumber) } == true, "\(file)")
                #expect(info.bands >= 1 && !info.colorspace.isEmpty && info.colorspace != "unknown" && info.sampleFormat != "unknown", "\(file)")
                #expect((try? info.jsonData()) != nil, "\(file)")
            } catch {
                guard case .header = error else {
                    Issue.record("\(file): \(error)")
                    continue
                }
                #expect(header == nil, "\(file): the header reads, the info does not: \(error)")
            }
        }
        #expect(read > 0)
    }
}
