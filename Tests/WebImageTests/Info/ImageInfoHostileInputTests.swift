import Foundation
import Testing
import WebImage
import WebImageTestSupport

/// Inputs that are not images, cut ones, and bombs: each refused with a typed error by its
/// header, never a crash.
@Suite(.offThePool) struct ImageInfoHostileInputTests {
    static func refusal(_ data: Data, _ options: String = "", coderOptions: ImageCoderOptions = ImageCoderOptions()) -> ImageInfoError? {
        do {
            let info = try ImageInfo(data: data, options: InfoOptions(parsing: options), coderOptions: coderOptions)
            Issue.record("read as \(info.format) \(info.pixelWidth)x\(info.pixelHeight)")
            return nil
        } catch {
            return error
        }
    }

    @Test func emptyDataIsRefused() {
        #expect(Self.refusal(Data()) == .header(.emptyData))
    }

    @Test func bytesOfNoFormatAreRefused() {
        #expect(Self.refusal(Data("this is not an image, only some text".utf8)) == .header(.unknownFormat))
        #expect(Self.refusal(Data(repeating: 0xFF, count: 4096)) == .header(.unknownFormat))
    }

    /// Each format cut inside its header: a corrupt-data error naming the format.
    @Test(arguments: ["photos/rocket.jpg", "photos/astronaut.png", "sdwebimage/TestLoopCount.gif", "sdwebimage/TestImageStatic.webp"])
    func aFileCutInItsHeaderIsRefused(file: String) throws {
        let data = try TestImages.data(file)
        let error = Self.refusal(data.prefix(20))
        guard case .header(.corruptData(let format, _)) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(format == ImageFormat(sniffing: data))
    }

    /// A JPEG whose frame header claims 60000 x 60000 pixels (the scan a few kilobytes): refused
    /// by the pixel limit before any pixel, as a decode would be.
    @Test func aJPEGBombIsRefusedByItsHeader() throws {
        var bytes = [UInt8](try TestImages.data("photos/rocket.jpg"))
        let frame = try #require(bytes.indices.dropLast().first { bytes[$0] == 0xFF && (0xC0...0xC2).contains(bytes[$0 + 1]) })
        // SOFn: marker, length (2), precision (1), height (2), width (2).
        for offset in [frame + 5, frame + 7] {
            bytes[offset] = 0xEA
            bytes[offset + 1] = 0x60
        }
        let error = Self.refusal(Data(bytes))
        guard case .header(.tooManyPixels(let width, let height, _)) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(width == 60000 && height == 60000)
    }

    /// The caller's limits are the ones kept.
    @Test func theCoderOptionsPixelLimitApplies() throws {
        var limits = ImageCoderOptions()
        limits.decodeMaxPixelCount = 10_000
        #expect(Self.refusal(try TestImages.data("photos/rocket.jpg"), coderOptions: limits) == .header(.tooManyPixels(width: 640, height: 427, limit: 10_000)))
        #expect(Self.refusal(try TestImages.data("sdwebimage/TestImage.png"), coderOptions: limits) == .header(.tooManyPixels(width: 300, height: 300, limit: 10_000)))
    }

    /// A PNG cut after its header: the header facts are read (no pixel is), but a check that
    /// needs pixels says why it could not decode them.
    @Test func aPNGCutAfterItsHeaderGivesItsHeaderButNoPixels() throws {
        let data = try TestImages.data("sdwebimage/TestImage.png")
        let cut = data.prefix(data.count / 2)
        let info = try ImageInfo(data: cut, options: InfoOptions(parsing: "a:1"))
        #expect(info.pixelWidth == 300 && info.pixelHeight == 300 && info.hasAlpha)
        guard case .analysis = Self.refusal(cut, "a:1:1") else {
            Issue.record("the transparency check of a cut PNG did not fail")
            return
        }
    }

    /// Options /info refuses, named in the error.
    @Test func badOptionsAreRefusedByName() throws {
        #expect(try InfoOptions(parsing: "page:0/pg:0") == InfoOptions())
        for (text, name) in [("bh:10:3", "bh"), ("p:1", "p"), ("size:maybe", "size"), ("chs:crc32", "chs"), ("nope:1", "nope"), ("vm:1", "vm"), ("do:maybe", "do"), ("pg:-1", "pg"), ("page:x", "page")] {
            #expect(throws: ImageInfoError.self, "\(text)") { try InfoOptions(parsing: text) }
            do {
                _ = try InfoOptions(parsing: text)
            } catch {
                #expect(error.description.contains(name), "\(error)")
            }
        }
    }
}
