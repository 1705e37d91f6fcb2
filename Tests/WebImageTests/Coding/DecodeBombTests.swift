import Foundation
import Testing
import ImageEngine
import WebImageTestServer
@testable import WebImage
import WebImageTestSupport

extension Heavy {
    /// Small inputs that would cost a lot to decode, built from the real test images: each is
    /// refused with a typed error, within a stated work (1 s of the calling thread's CPU time, a
    /// debug build, the whole call, stretched under a sanitizer; a refusal reads the file's
    /// structure in that thread) and, decoded again in a process of its own, a stated peak memory.
    @Suite(.offThePool) struct DecodeBombTests {
        static let workBound = TestAllowance.time(.seconds(1))
        /// The whole decoding process's peak resident memory, its start (libvips and the Swift
        /// runtime) included.
        static let memoryBound = 100 << 20

        /// The error `data` is refused with, failing the test if it decodes or takes over the bound.
        static func refusal(
            _ data: Data, _ options: ImageCoderOptions = ImageCoderOptions(), sourceLocation: SourceLocation = #_sourceLocation
        ) -> ImageCodingError? {
            var refusal: ImageCodingError?
            let used = DecodeWorkBombTests.cpuTime {
                do throws(ImageCodingError) {
                    let image = try ImageCodersManager.shared.decode(data, options: options)
                    Issue.record("decoded as \(image.pixelWidth)x\(image.pixelHeight), \(image.frameCount) frames", sourceLocation: sourceLocation)
                } catch {
                    refusal = error
                }
            }
            #expect(used < workBound, "took \(used) of CPU time", sourceLocation: sourceLocation)
            return refusal
        }

        /// Decodes `data` in a process of its own (decode-probe, the library's default options): it
        /// must be refused with `reason` in its error, and the process must peak under `memoryBound`.
        static func expectRefusedInBoundedMemory(
            _ data: Data, reason: String, sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            let probe = try await DecodeWorkBombTests.probe(data, [], sourceLocation: sourceLocation)
            #expect(probe.outcome.hasPrefix("refused: ") && probe.outcome.contains(reason), "\(probe.outcome)", sourceLocation: sourceLocation)
            #expect(probe.peak < memoryBound, "peak resident memory \(probe.peak >> 20) MB", sourceLocation: sourceLocation)
        }

        static func isOverLimit(_ error: ImageCodingError?, _ format: ImageFormat) -> Bool {
            guard case .overLimit(format, _) = error else { return false }
            return true
        }

        // MARK: Progressive JPEG

        /// The byte ranges of a JPEG's scans (SOS marker to the next marker that starts a scan or
        /// ends the image). The fixture has no embedded thumbnail, so every 0xFF 0xDA is a scan.
        static func scans(of bytes: [UInt8]) -> [Range<Int>] {
            let starts = bytes.indices.dropLast().filter { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }
            let end = bytes.count - 2
            return zip(starts, starts.dropFirst() + [end]).map { $0..<$1 }
        }

        @Test func progressiveJPEGWithThousandsOfScansIsRefused() async throws {
            var bytes = [UInt8](try TestImages.fixture("rocket-progressive-split-chroma.jpg"))
            let smallest = try #require(Self.scans(of: bytes).min { $0.count < $1.count })
            let scan = Array(bytes[smallest])
            // 5,000 more copies of the smallest scan, before the end-of-image marker.
            bytes.insert(contentsOf: Array([[UInt8]](repeating: scan, count: 5_000).joined()), at: bytes.count - 2)
            let error = Self.refusal(Data(bytes))
            #expect(Self.isOverLimit(error, .jpeg), "\(String(describing: error))")
            try await Self.expectRefusedInBoundedMemory(Data(bytes), reason: "jpeg over a decode limit")
        }

        @Test func scanLimitIsAnOption() throws {
            let data = try TestImages.fixture("rocket-progressive-split-chroma.jpg")
            let scanCount = Self.scans(of: [UInt8](data)).count
            _ = try TestImages.decoded(data)
            var options = ImageCoderOptions()
            options.decodeMaxScanCount = scanCount - 1
            #expect(Self.isOverLimit(Self.refusal(data, options), .jpeg))
            options.decodeMaxScanCount = scanCount
            #expect(try ImageCodersManager.shared.decode(data, options: options).pixelWidth == 640)
        }

        // MARK: GIF

        /// A GIF cut into its header (with the global colour table), its blocks and the trailer.
        struct GIFParts {
            var header: [UInt8]
            var blocks: [[UInt8]]

            init(_ data: Data) throws {
                let bytes = [UInt8](data)
                var offset = 13 + (bytes[10] & 0x80 == 0 ? 0 : 3 << (Int(bytes[10] & 0x07) + 1))
                header = Array(bytes[..<offset])
                blocks = []
                while bytes[offset] != 0x3B {
                    let start = offset
                    if bytes[offset] == 0x21 {
                        offset += 2
                    } else {
                        try #require(bytes[offset] == 0x2C)
                        let flags = bytes[offset + 9]
                        offset += 10 + (flags & 0x80 == 0 ? 0 : 3 << (Int(flags & 0x07) + 1)) + 1
                    }
                    while bytes[offset] != 0 { offset += 1 + Int(bytes[offset]) }
                    offset += 1
                    blocks.append(Array(bytes[start..<offset]))
                }
            }

            /// The first frame: its graphic control extension and image block.
            var firstFrame: [UInt8] {
                get throws {
                    let image = try #require(blocks.firstIndex { $0[0] == 0x2C })
                    return blocks[image - 1] + blocks[image]
                }
            }

            func file(blocks: [[UInt8]]) -> Data {
                Data(header + blocks.joined() + [0x3B])
            }
        }

        @Test func gifWithTensOfThousandsOfFramesIsRefused() async throws {
            let gif = try GIFParts(TestImages.data("photos/no_time_for_that_tiny.gif"))
            let data = gif.file(blocks: try [[UInt8]](repeating: gif.firstFrame, count: 20_000))
            let error = Self.refusal(data)
            #expect(Self.isOverLimit(error, .gif), "\(String(describing: error))")
            try await Self.expectRefusedInBoundedMemory(data, reason: "gif over a decode limit")
        }

        @Test func gifWhoseFramesTotalOverTheLimitIsRefused() async throws {
            var gif = try GIFParts(TestImages.data("photos/no_time_for_that_tiny.gif"))
            // A 10000x10000 canvas (the per-frame limit) for its 24 frames: 2.4 gigapixels.
            gif.header.replaceSubrange(6..<10, with: [0x10, 0x27, 0x10, 0x27])
            let error = Self.refusal(gif.file(blocks: gif.blocks))
            #expect(Self.isOverLimit(error, .gif), "\(String(describing: error))")
            try await Self.expectRefusedInBoundedMemory(gif.file(blocks: gif.blocks), reason: "gif over a decode limit")
        }

        @Test func gifWithAHugeLZWStreamIsRefused() async throws {
            let gif = try GIFParts(TestImages.data("photos/no_time_for_that_tiny.gif"))
            var frame = try gif.firstFrame
            // 2 MB more image data (clear codes) in a 14x25 frame, before its terminating block.
            let subBlock = [UInt8(255)] + [UInt8](repeating: 0x10, count: 255)
            frame.insert(contentsOf: Array([[UInt8]](repeating: subBlock, count: 8_000).joined()), at: frame.count - 1)
            let error = Self.refusal(gif.file(blocks: [frame]))
            #expect(Self.isOverLimit(error, .gif), "\(String(describing: error))")
            try await Self.expectRefusedInBoundedMemory(gif.file(blocks: [frame]), reason: "gif over a decode limit")
        }

        // MARK: PNG metadata

        /// `file` with `chunks` (type, body) inserted after its IHDR chunk, each with its CRC.
        static func png(_ file: String, inserting chunks: [(String, [UInt8])]) throws -> Data {
            var bytes = [UInt8](try TestImages.data(file))
            let afterHeader = 8 + 12 + 13
            var inserted: [UInt8] = []
            for (type, body) in chunks {
                let typeAndBody = Array(type.utf8) + body
                inserted += withUnsafeBytes(of: UInt32(body.count).bigEndian, Array.init) + typeAndBody
                inserted += withUnsafeBytes(of: CRC32.checksum(Data(typeAndBody)).bigEndian, Array.init)
            }
            bytes.insert(contentsOf: inserted, at: afterHeader)
            return Data(bytes)
        }

        /// A zlib stream that inflates to `mebibytes` MiB of zeros (and a filter byte a row): the
        /// image data of a black RGBA image 4096 pixels wide as libvips' PNG encoder writes it.
        static func zlibOfZeros(mebibytes: Int) throws -> [UInt8] {
            let black = PixelBuffer(width: 4096, height: mebibytes * 64, bands: 4) { $0.initializeMemory(as: UInt8.self, repeating: 0) }
            return imageData(ofPNG: [UInt8](try ImageCodersManager.shared.encode(Image(bitmap: black, format: .png), format: .png, options: ImageCoderOptions())))
        }

        /// The image data of `png`: its IDAT chunks' bodies, joined (one zlib stream).
        static func imageData(ofPNG png: [UInt8]) -> [UInt8] {
            var stream: [UInt8] = []
            var offset = 8
            while offset + 12 <= png.count {
                let length = png[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
                if png[(offset + 4)..<(offset + 8)].elementsEqual("IDAT".utf8) { stream += png[(offset + 8)..<(offset + 8 + length)] }
                offset += 12 + length
            }
            return stream
        }

        /// Found by the `decode` fuzz target (Tests/Images/fuzz-regressions): a 454-byte PNG whose
        /// iTXt chunk declares 1.9 GB. libvips' PNG reader had libpng allocate that length while
        /// reading the header (2.4 GB resident under ASan, the fuzzer's out-of-memory).
        @Test func pngChunkDeclaringMoreBytesThanTheFileIsRefused() async throws {
            let found = try TestImages.data("fuzz-regressions/png-itxt-longer-than-file.png")
            let error = Self.refusal(found)
            guard case .corruptData(.png, let reason) = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(reason.contains("longer than the file"))
            try await Self.expectRefusedInBoundedMemory(found, reason: "longer than the file")
            // The same shape on real files: a text chunk and an unknown chunk declaring 2 GB - 1,
            // the file ending there.
            for type in ["iTXt", "zTXt", "prVt"] {
                var bytes = [UInt8](try TestImages.data("pngsuite/basn2c08.png").prefix(8 + 12 + 13))
                bytes += [0x7F, 0xFF, 0xFF, 0xFF] + Array(type.utf8) + Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0]
                #expect(Self.refusal(Data(bytes)) != nil, "\(type)")
            }
        }

        /// Every input the fuzzers found (Tests/Images/fuzz-regressions) gives a typed error, decoded
        /// whole and as the `decode` fuzz target decodes (a 64x64 thumbnail, 16 megapixels at most),
        /// but for the valid images a reader mishandled (named `decodable-`), which decode.
        @Test func everyFuzzRegressionInputIsRefused() throws {
            let folder = TestImages.folder.appendingPathComponent("fuzz-regressions")
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasSuffix(".md") }
            #expect(files.filter { !$0.hasPrefix("decodable-") }.count >= 5)
            var thumbnail = ImageCoderOptions()
            thumbnail.decodeMaxPixelCount = 16_000_000
            thumbnail.decodeThumbnailPixelSize = CGSize(width: 64, height: 64)
            for file in files {
                let data = try Data(contentsOf: folder.appendingPathComponent(file))
                if file.hasPrefix("decodable-") {
                    let image = try ImageCodersManager.shared.decode(data, options: thumbnail)
                    #expect(max(image.pixelWidth, image.pixelHeight) == 64, "\(file), thumbnailed")
                } else {
                    #expect(Self.refusal(data) != nil, "\(file)")
                    #expect(Self.refusal(data, thumbnail) != nil, "\(file), thumbnailed")
                }
            }
        }

        /// Found by the `decode` fuzz target: a JPEG 3 pixels wide and 31,141 tall, thumbnailed, had
        /// libvips load it shrunk 8 times, 0 pixels wide, and libvips aborted the process. The same
        /// shape, valid: a 3-pixel-wide strip of a photo, with stray bytes before its end marker (a
        /// libjpeg warning, so that libvips reads it rather than TurboJPEG), thumbnailed to 32x32,
        /// gives a 1x32 image.
        @Test func jpegNarrowerThanItsShrinkOnLoadIsThumbnailed() throws {
            let photo = try ImageCodersManager.shared.decode(try TestImages.data("photos/rocket.jpg"), options: ImageCoderOptions())
            let strip = try #require(CroppingTransformer(rect: CGRect(x: 300, y: 0, width: 3, height: 427)).transformedImage(with: photo, forKey: ""))
            var jpeg = try ImageCodersManager.shared.encode(strip, format: .jpeg, options: ImageCoderOptions())
            try #require(jpeg.suffix(2) == Data([0xFF, 0xD9]))
            jpeg.insert(contentsOf: [UInt8](repeating: 0x55, count: 64), at: jpeg.count - 2)
            var options = ImageCoderOptions()
            options.decodeThumbnailPixelSize = CGSize(width: 32, height: 32)
            for lazy in [false, true] {
                options.decodeUseLazyDecoding = lazy
                let thumbnail = try ImageCodersManager.shared.decode(jpeg, options: options)
                #expect(thumbnail.pixelWidth == 1 && thumbnail.pixelHeight == 32, "\(thumbnail.pixelWidth)x\(thumbnail.pixelHeight)")
                #expect(thumbnail.pixel(x: 0, y: 16) != nil)
            }
        }

        @Test func pngWithAHugeICCProfileIsRefused() async throws {
            // A 32 MiB profile in 32 kB (libvips' reader inflates 8 MB of it, then warns).
            let zeros = try Self.zlibOfZeros(mebibytes: 32)
            let data = try Self.png("pngsuite/basn2c08.png", inserting: [("iCCP", Array("bomb".utf8) + [0, 0] + zeros)])
            let error = Self.refusal(data)
            #expect(Self.isOverLimit(error, .png), "\(String(describing: error))")
            try await Self.expectRefusedInBoundedMemory(data, reason: "png over a decode limit")
        }

        @Test(arguments: ["pngsuite/basn2c08.png", "pngsuite/basn2c16.png", "sdwebimage/TestImageAnimated.apng"])
        func pngWithManyHugeTextChunksIsRefused(file: String) async throws {
            let zeros = try Self.zlibOfZeros(mebibytes: 32)
            let text = ("zTXt", Array("Comment".utf8) + [0, 0] + zeros)
            let international = ("iTXt", Array("Comment".utf8) + [0, 1, 0, 0, 0] + zeros)
            // 10 chunks of each kind, 32 MiB each once inflated (libvips' reader took 62 to 99 s over
            // 50 such chunks of 100 MiB, inflating 8 MB of each).
            let data = try Self.png(file, inserting: Array(repeating: text, count: 10) + Array(repeating: international, count: 10))
            let error = Self.refusal(data)
            #expect(Self.isOverLimit(error, .png), "\(String(describing: error))")
            try await Self.expectRefusedInBoundedMemory(data, reason: "png over a decode limit")
        }

        @Test func metadataLimitIsAnOption() throws {
            let zeros = try Self.zlibOfZeros(mebibytes: 2)
            let data = try Self.png("pngsuite/basn2c08.png", inserting: [("zTXt", Array("Comment".utf8) + [0, 0] + zeros)])
            #expect(try TestImages.decoded(data).pixelWidth == 32)
            var options = ImageCoderOptions()
            options.decodeMaxMetadataBytes = 1 << 20
            #expect(Self.isOverLimit(Self.refusal(data, options), .png))
        }

        // MARK: Animations over the total

        @Test(arguments: ["sdwebimage/TestImageAnimated.webp", "sdwebimage/TestImageAnimated.apng", "sdwebimage/TestImage.gif"])
        func animationOverTheTotalPixelLimitIsRefused(file: String) throws {
            let data = try TestImages.data(file)
            let image = try TestImages.decoded(data)
            // Frames x canvas; an animated WebP's frames also count 4 times their own pixels.
            let webPFrames = image.format == .webP ? WebPFrames.codedPixelCount(in: data) * DecodeLimits.webPFramePixelCost : 0
            let total = max(image.pixelWidth * image.pixelHeight * image.frameCount, webPFrames)
            var options = ImageCoderOptions()
            options.decodeMaxTotalPixelCount = total
            #expect(try ImageCodersManager.shared.decode(data, options: options).frameCount == image.frameCount)
            options.decodeMaxTotalPixelCount = total - 1
            #expect(Self.isOverLimit(Self.refusal(data, options), image.format))
            options = ImageCoderOptions()
            options.decodeMaxFrameCount = image.frameCount - 1
            #expect(Self.isOverLimit(Self.refusal(data, options), image.format))
        }

        /// With `decodeFrameLimit`, the frame and total pixel limits count the frames kept only.
        @Test(arguments: ["sdwebimage/TestImageAnimated.webp", "sdwebimage/TestImageAnimated.apng", "sdwebimage/TestImage.gif"])
        func theAnimationLimitsCountTheFramesKept(file: String) throws {
            let data = try TestImages.data(file)
            let image = try TestImages.decoded(data)
            let kept = 3
            let webPFrames = image.format == .webP ? WebPFrames.codedPixelCount(in: data, frames: kept) * DecodeLimits.webPFramePixelCost : 0
            let total = max(image.pixelWidth * image.pixelHeight * kept, webPFrames)
            var options = ImageCoderOptions()
            options.decodeFrameLimit = kept
            options.decodeMaxFrameCount = kept
            options.decodeMaxTotalPixelCount = total
            #expect(try ImageCodersManager.shared.decode(data, options: options).frameCount == kept)
            options.decodeMaxTotalPixelCount = total - 1
            #expect(Self.isOverLimit(Self.refusal(data, options), image.format))
            options.decodeMaxTotalPixelCount = total
            options.decodeMaxFrameCount = kept - 1
            #expect(Self.isOverLimit(Self.refusal(data, options), image.format))
        }

        // MARK: Vector canvases

        @Test func svgAskingForAHugeCanvasIsRefused() async throws {
            let svg = try String(decoding: TestImages.data("sdwebimage/TestImage.svg"), as: UTF8.self)
            let huge = svg.replacingOccurrences(of: "<svg ", with: "<svg width=\"200000\" height=\"200000\" ")
            let error = Self.refusal(Data(huge.utf8))
            guard case .tooManyPixels(200_000, 200_000, _) = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            try await Self.expectRefusedInBoundedMemory(Data(huge.utf8), reason: "200000x200000 exceeds the limit")
        }

        @Test func pdfAskingForAHugeCanvasIsRefused() async throws {
            let pdf = try TestImages.data("sdwebimage/TestImage.pdf")
            let mediaBox = try #require(pdf.range(of: Data("[ 0 0 36 36 ]".utf8)))
            var huge = pdf
            // The largest page PDF allows (14,400 units a side), at 72 dpi: 207 megapixels.
            huge.replaceSubrange(mediaBox, with: Data("[0 0 14400 14400]".utf8))
            let error = Self.refusal(huge)
            guard case .tooManyPixels(14_400, 14_400, _) = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            try await Self.expectRefusedInBoundedMemory(huge, reason: "14400x14400 exceeds the limit")
        }
    }
}
