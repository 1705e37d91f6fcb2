import Foundation
import Testing
import ImageEngine
@testable import WebImage
import WebImageTestServer
import WebImageTestSupport

extension Heavy {
    /// Small inputs whose decode (or re-encode) costs a lot of work no limit counted before:
    /// animations replayed from their start for every frame, every frame of an animation held at
    /// once to encode it, APNG frames composited on copies of a large canvas, pixels of 8 to 16
    /// bytes, JPEGs decoded twice and TIFF directories of thousands of tags. Each file is made here;
    /// each is decoded within a bound on its work (CPU time, which the machine's load does not
    /// stretch; the cost before was minutes) or refused with a typed error, and the heavy ones run
    /// again in a process of their own (decode-probe) under a peak memory bound.
    @Suite(.offThePool) struct DecodeWorkBombTests {
        /// The CPU time a pass over a bomb's frames may take: far above what each takes now (about
        /// 3 s of CPU in the debug build) and below what each took before (a minute and more),
        /// stretched under a sanitizer.
        static let workBound = TestAllowance.time(.seconds(20))

        /// Options that leave the time budget out of the way of a test of other work: its bound is
        /// the test's own (`workBound`).
        static var withoutBudget: ImageCoderOptions {
            var options = ImageCoderOptions()
            options.decodeTimeBudget = DecodeTimeBudget(thumbnail: .seconds(600), fullSize: .seconds(600), animation: .seconds(600))
            return options
        }

        /// The CPU time the calling thread takes to run `body`.
        static func cpuTime(_ body: () throws -> Void) rethrows -> Duration {
            let start = WorkBudget.threadCPUTime
            try body()
            return WorkBudget.threadCPUTime - start
        }

        /// Decodes (or encodes) `data` in decode-probe with `arguments`: the outcome line must start
        /// with `outcome`, and the whole process must peak under `peakBound` bytes.
        static func expectInProcess(
            _ data: Data, _ arguments: [String] = [], outcome: String, peakBound: Int, sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            let peak = try await probePeak(data, arguments, outcome: outcome, sourceLocation: sourceLocation)
            #expect(peak < TestAllowance.bytes(peakBound), "peak resident memory \(peak >> 20) MB", sourceLocation: sourceLocation)
        }

        /// What decode-probe printed: its outcome line, its peak resident memory in bytes and the
        /// CPU time its decodes and encodes took, every thread of the process counted.
        struct Probe {
            let outcome: String
            let peak: Int
            let cpu: Duration
        }

        /// Runs decode-probe on `data` with `arguments` (and `environment`).
        static func probe(
            _ data: Data, _ arguments: [String], environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
        ) async throws -> Probe {
            let input = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-work-bomb-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: input) }
            try data.write(to: input)
            let result = try await ChildProcess.run("decode-probe", [input.path] + arguments, environment: environment)
            let lines = result.standardOutput.split(separator: "\n").map(String.init)
            #expect(result.status == 0 && lines.count == 3, "\(result.standardError)", sourceLocation: sourceLocation)
            func value(_ name: String) throws -> Int {
                try #require(lines.first { $0.hasPrefix(name + " ") }.flatMap { Int($0.dropFirst(name.count + 1)) }, sourceLocation: sourceLocation)
            }
            let probe = Probe(outcome: lines.first ?? "", peak: try value("peak"), cpu: .nanoseconds(try value("cpu")))
            #expect(probe.peak > 0 && probe.cpu > .zero, sourceLocation: sourceLocation)
            return probe
        }

        /// Runs decode-probe on `data` with `arguments` (and `environment`); its outcome line must
        /// start with `outcome`. Answers the process's peak resident memory in bytes.
        static func probePeak(
            _ data: Data, _ arguments: [String], outcome: String, environment: [String: String] = [:],
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws -> Int {
            let probe = try await probe(data, arguments, environment: environment, sourceLocation: sourceLocation)
            #expect(probe.outcome.hasPrefix(outcome), "\(probe.outcome)", sourceLocation: sourceLocation)
            return probe.peak
        }

        // MARK: Animations read in one pass

        /// A GIF of `frames` one-pixel frames on a `side` x `side` canvas, each "restore previous",
        /// at a new place: libvips' GIF loader (libnsgif) composes each on the whole canvas.
        static func gifOfOnePixelFrames(side: Int, frames: Int) -> Data {
            var bytes: [UInt8] = Array("GIF89a".utf8) + [UInt8(side & 0xFF), UInt8(side >> 8), UInt8(side & 0xFF), UInt8(side >> 8), 0xF7, 0, 0]
            for index in 0..<256 { bytes += [UInt8(index), UInt8(255 - index), UInt8(index * 7 & 0xFF)] }
            bytes += [0x21, 0xFF, 0x0B] + Array("NETSCAPE2.0".utf8) + [0x03, 0x01, 0x00, 0x00, 0x00]
            for frame in 0..<frames {
                let (x, y) = (frame * 7 % side, frame * 13 % side)
                // Graphic control: dispose 3 (restore previous), 40 ms; then the 1x1 image of colour 5.
                bytes += [0x21, 0xF9, 0x04, 3 << 2, 4, 0, 0, 0]
                bytes += [0x2C, UInt8(x & 0xFF), UInt8(x >> 8), UInt8(y & 0xFF), UInt8(y >> 8), 1, 0, 1, 0, 0]
                bytes += [8, 4, 0, 11, 4, 4, 0]
            }
            return Data(bytes + [0x3B])
        }

        /// libvips' own reading of frame `index` (a load of that page alone), as RGBA8.
        static func libvipsFrame(_ data: Data, loader: String, index: Int) throws -> PixelBuffer {
            try VipsImageRef.load(loader, data: data, options: "page=\(index),n=1").normalizedToSRGB().withAlpha().render()
        }

        static func bytes(_ pixels: PixelBuffer) -> [UInt8] {
            pixels.withUnsafeBytes { [UInt8]($0) }
        }

        @Test func gifFramesAreReadInOneForwardPass() throws {
            // 249 frames of a megapixel canvas: read page by page, frame n replayed n frames (31,000
            // frame decodes and canvas copies); in one pass, 249. (Under the default animation
            // budget, a whole-suite ThreadSanitizer run, 5 times slower, had frame 132 stopped.)
            let data = Self.gifOfOnePixelFrames(side: 1000, frames: 249)
            let image = try ImageCodersManager.shared.decode(data, options: Self.withoutBudget)
            #expect(image.frameCount == 249)
            var frames: [Int: PixelBuffer] = [:]
            let used = try Self.cpuTime {
                for index in 0..<image.frameCount {
                    let frame = try image.decodeFrame(at: index)
                    #expect(frame.pixelWidth == 1000 && frame.pixelHeight == 1000)
                    if [1, 100, 248].contains(index) { frames[index] = try frame.decoded().renderedPixels() }
                }
            }
            #expect(used < Self.workBound, "took \(used) of CPU time")
            for (index, pixels) in frames {
                #expect(Self.bytes(pixels) == Self.bytes(try Self.libvipsFrame(data, loader: "gifload_buffer", index: index)), "frame \(index)")
            }
            // Out of order: back to an earlier frame, and a jump ahead.
            let back = try image.decodeFrame(at: 100).decoded().renderedPixels()
            #expect(Self.bytes(back) == Self.bytes(try #require(frames[100])))
            let ahead = try image.decodeFrame(at: 248).decoded().renderedPixels()
            #expect(Self.bytes(ahead) == Self.bytes(try #require(frames[248])))
        }

        @Test func webPFramesAreReadInOneForwardPass() throws {
            let photo = try TestImages.decoded(try TestImages.data("photos/rocket.jpg"))
            // 40 frames, each the photo cropped at another place, encoded by our WebP saver.
            let frames = try (0..<40).map { index in
                let crop = try #require(CroppingTransformer(rect: CGRect(x: index * 5, y: index * 3, width: 400, height: 300)).transformedImage(with: photo, forKey: ""))
                return ImageFrame(image: crop, duration: 0.05)
            }
            let animation = try #require(ImageCoderHelper.animatedImage(with: frames))
            let data = try ImageCodersManager.shared.encode(animation, format: .webP, options: ImageCoderOptions())
            let image = try TestImages.decoded(data)
            #expect(image.frameCount == 40)
            for index in 0..<image.frameCount {
                let frame = try #require(image.frame(at: index)).decoded().renderedPixels()
                if index % 13 == 0 {
                    #expect(Self.bytes(frame) == Self.bytes(try Self.libvipsFrame(data, loader: "webpload_buffer", index: index)), "frame \(index)")
                }
            }
            // Thumbnailed: every frame from one thumbnail of the whole strip, each the poster's size.
            var options = ImageCoderOptions()
            options.decodeThumbnailPixelSize = CGSize(width: 64, height: 64)
            let thumbnail = try ImageCodersManager.shared.decode(data, options: options)
            for index in [0, 1, 39] {
                let frame = try #require(thumbnail.frame(at: index))
                #expect(frame.pixelWidth == thumbnail.pixelWidth && frame.pixelHeight == thumbnail.pixelHeight)
                #expect(thumbnail.pixelWidth == 64 && thumbnail.pixelHeight == 48)
            }
        }

        // MARK: Encoding an animation a frame at a time

        @Test func animationIsEncodedHoldingOneFrame() async throws {
            // 249 frames of a megapixel: 1 GB as RGBA, every frame held before; now one at a time
            // (with the encode limit lifted: by default, it is refused before any is encoded).
            let data = Self.gifOfOnePixelFrames(side: 1000, frames: 249)
            try await Self.expectInProcess(data, ["--encode", "webp", "--encode-limit", "\(Int.max)"], outcome: "encoded", peakBound: 300 << 20)
            try await Self.expectInProcess(data, ["--encode", "webp"], outcome: "refused: webp over an encode limit", peakBound: 300 << 20)
        }

        @Test func animationOverTheEncodeLimitIsRefusedBeforeEncoding() throws {
            // 40 frames of 100x100, each counted as `encodeFramePixelFloor` pixels (what a frame
            // costs an encoder however small): one pixel over the limit, then within it.
            let image = try TestImages.decoded(Self.gifOfOnePixelFrames(side: 100, frames: 40))
            var options = ImageCoderOptions()
            options.encodeMaxTotalPixelCount = 40 * ImageCoderOptions.encodeFramePixelFloor - 1
            for format in [ImageFormat.webP, .gif, .png] {
                let error = #expect(throws: ImageCodingError.self) {
                    try ImageCodersManager.shared.encode(image, format: format, options: options)
                }
                guard case .overEncodeLimit(format, let reason)? = error else {
                    Issue.record("\(format): \(String(describing: error))")
                    continue
                }
                #expect(reason.contains("40 frames of 100x100"))
            }
            options.encodeMaxTotalPixelCount += 1
            for format in [ImageFormat.webP, .gif, .png] {
                #expect(try TestImages.decoded(ImageCodersManager.shared.encode(image, format: format, options: options)).frameCount == 40)
            }
        }

        @Test func encodedAnimationKeepsItsFrames() throws {
            let data = Self.gifOfOnePixelFrames(side: 40, frames: 30)
            let image = try TestImages.decoded(data)
            let source = try [0, 17, 29].map { try #require(image.frame(at: $0)).decoded().renderedPixels() }
            for format in [ImageFormat.png, .gif, .webP] {
                let encoded = try ImageCodersManager.shared.encode(image, format: format, options: ImageCoderOptions())
                let decoded = try TestImages.decoded(encoded)
                #expect(decoded.frameCount == 30, "\(format)")
                for (index, original) in zip([0, 17, 29], source) {
                    let frame = try #require(decoded.frame(at: index)).decoded().renderedPixels()
                    #expect(frame.width == 40 && frame.height == 40)
                    // PNG keeps every frame as it was, streamed in order; GIF (a palette) and WebP
                    // (lossy) keep it closely.
                    let difference = zip(Self.bytes(frame), Self.bytes(original)).map { abs(Int($0) - Int($1)) }
                    #expect(format != .png || difference.allSatisfy { $0 == 0 }, "\(format) frame \(index)")
                    #expect(difference.reduce(0, +) / difference.count < 4, "\(format) frame \(index)")
                }
            }
        }

        // MARK: APNG compositing

        /// A PNG chunk: length, type, body, CRC.
        static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typeAndBody = Array(type.utf8) + body
            return withUnsafeBytes(of: UInt32(body.count).bigEndian, Array.init) + typeAndBody
                + withUnsafeBytes(of: CRC32.checksum(Data(typeAndBody)).bigEndian, Array.init)
        }

        static func bigEndian(_ values: [UInt32]) -> [UInt8] {
            values.flatMap { withUnsafeBytes(of: $0.bigEndian, Array.init) }
        }

        /// A frame control chunk's body: sequence, size, place, 40 ms, dispose and blend.
        static func frameControl(_ sequence: Int, width: Int, height: Int, x: Int, y: Int, dispose: UInt8, blend: UInt8) -> [UInt8] {
            bigEndian([UInt32(sequence), UInt32(width), UInt32(height), UInt32(x), UInt32(y)]) + [0, 4, 0, 100, dispose, blend]
        }

        /// An APNG of a `width` x `height` canvas: a first frame covering it (`canvas`, the image
        /// data of the whole canvas), then `smallFrames` one-pixel frames at new places, half
        /// transparent red (dispose "previous", blend over).
        static func apng(width: Int, height: Int, canvas: [UInt8], smallFrames: Int) throws -> Data {
            var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            bytes += chunk("IHDR", bigEndian([UInt32(width), UInt32(height)]) + [8, 6, 0, 0, 0])
            bytes += chunk("acTL", bigEndian([UInt32(1 + smallFrames), 0]))
            bytes += chunk("fcTL", frameControl(0, width: width, height: height, x: 0, y: 0, dispose: 0, blend: 0))
            bytes += chunk("IDAT", canvas)
            let pixel = try Self.imageData(of: VipsImageRef.wrapping(PixelBuffer(width: 1, height: 1, bands: 4) { $0[0] = 255; $0[3] = 128 }))
            var sequence = 1
            for frame in 0..<smallFrames {
                bytes += chunk("fcTL", frameControl(sequence, width: 1, height: 1, x: frame * 7 % width, y: frame * 13 % height, dispose: 2, blend: 1))
                bytes += chunk("fdAT", bigEndian([UInt32(sequence + 1)]) + pixel)
                sequence += 2
            }
            bytes += chunk("IEND", [])
            return Data(bytes)
        }

        /// The image data (the zlib stream of its IDAT chunks) of 8-bit RGBA `image` as libvips'
        /// PNG saver writes it, unfiltered, streaming.
        static func imageData(of image: VipsImageRef) throws -> [UInt8] {
            DecodeBombTests.imageData(ofPNG: [UInt8](try image.save("pngsave_buffer", options: "compression=1,filter=none")))
        }

        /// Opaque blue, `side` x `side`.
        static func blue(side: Int) throws -> VipsImageRef {
            try VipsImageRef.wrapping(PixelBuffer(width: side, height: side, bands: 4) { buffer in
                for index in 0..<(side * side) { buffer[index * 4 + 2] = 255; buffer[index * 4 + 3] = 255 }
            })
        }

        @Test func apngOfThousandsOfFramesComposesInPlace() async throws {
            // 9,999 frames on a 316x316 canvas: each frame copied the canvas twice before (50 s to
            // thumbnail), and converting to WebP held every frame (an allocation failure, a signal;
            // converted here with the encode limit lifted).
            let data = try Self.apng(width: 316, height: 316, canvas: try Self.imageData(of: Self.blue(side: 316)), smallFrames: 9_998)
            var options = Self.withoutBudget
            options.decodeThumbnailPixelSize = CGSize(width: 64, height: 64)
            let image = try ImageCodersManager.shared.decode(data, options: options)
            #expect(image.frameCount == 9_999)
            let used = try Self.cpuTime {
                for index in 0..<image.frameCount where index % 1_000 == 999 || index == 9_998 {
                    let frame = try image.decodeFrame(at: index)
                    #expect(frame.pixelWidth == 64)
                }
            }
            #expect(used < Self.workBound, "took \(used) of CPU time")
            // Frame 5's pixel (the fourth small frame's, at 28, 52): half red over opaque blue;
            // frame 6 restored it.
            let full = try TestImages.decoded(data)
            #expect(full.frame(at: 5)?.pixel(x: 28, y: 52) == RGBA8(red: 128, green: 0, blue: 127, alpha: 255))
            #expect(full.frame(at: 6)?.pixel(x: 28, y: 52) == RGBA8(red: 0, green: 0, blue: 255, alpha: 255))
            try await Self.expectInProcess(data, ["--encode", "webp", "--encode-limit", "\(Int.max)"], outcome: "encoded", peakBound: 300 << 20)
        }

        @Test func apngOnAHundredMegapixelCanvasFitsTheMemoryBound() async throws {
            // Two frames on 10000x10000: the canvas, a copy of it before each frame and the frame
            // decoded whole took 1.2 GB and 14 s before. Now the canvas, drawn on tile by tile, and
            // the copy handed out (or the thumbnail made from the canvas).
            let canvas = try Self.imageData(of: VipsImageRef.placeholder(width: 10_000, height: 10_000, bands: 4))
            let data = try Self.apng(width: 10_000, height: 10_000, canvas: canvas, smallFrames: 1)
            try await Self.expectInProcess(data, outcome: "decoded 10000x10000, 2 frames", peakBound: 1 << 30)
        }

        @Test func canvasTooLargeForMemoryIsAnError() {
            // 2^40 pixels, 4 TB: g_try_malloc0 returns NULL (as it does under the sanitizers'
            // allocator_may_return_null=1), and the canvas says so.
            #expect(throws: VipsError.self) { try RGBACanvas(width: 1 << 20, height: 1 << 20) }
        }

        // MARK: Bytes per pixel

        @Test func sixteenBitPixelsCountTheirBytes() throws {
            // 8,000 x 8,000 16-bit RGBA, interlaced: 64 megapixels, under the pixel limit, but 512 MB
            // as decoded (libspng holds an interlaced image whole) where 8-bit RGBA takes 256 MB.
            var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            bytes += Self.chunk("IHDR", Self.bigEndian([8_000, 8_000]) + [16, 6, 0, 0, 1])
            bytes += Self.chunk("IDAT", try Self.imageData(of: Self.blue(side: 1)))
            bytes += Self.chunk("IEND", [])
            let error = DecodeBombTests.refusal(Data(bytes))
            guard case .overLimit(.png, let reason) = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(reason.contains("of 8 bytes each"), "\(reason)")
            // Its header still reads (webimage info).
            #expect(try ImageHeader(probing: Data(bytes)).pixelWidth == 8_000)
        }

        /// A little-endian TIFF of one directory per element of `directories` (each a list of
        /// (tag, type, count, value or offset) entries, sorted), then `tail` (what offsets point at,
        /// from `8 + directory bytes`).
        static func tiff(_ directories: [[(UInt16, UInt16, UInt32, UInt32)]], tail: [UInt8] = []) -> Data {
            func little16(_ value: UInt16) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
            func little32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
            var bytes: [UInt8] = [0x49, 0x49] + little16(42) + little32(8)
            for (index, entries) in directories.enumerated() {
                bytes += little16(UInt16(entries.count))
                for (tag, type, count, value) in entries { bytes += little16(tag) + little16(type) + little32(count) + little32(value) }
                let next = index + 1 < directories.count ? UInt32(bytes.count + 4) : 0
                bytes += little32(next)
            }
            return Data(bytes + tail)
        }

        /// The tags of a `width` x `height` image of `samples` samples of `bits` in one strip at
        /// `dataOffset` (arrays of per-sample values at `arraysOffset`), `format` 1 unsigned, 3 float.
        static func tiffTags(width: UInt32, height: UInt32, samples: UInt32, bits: UInt32, format: UInt32, dataOffset: UInt32, arraysOffset: UInt32) -> [(UInt16, UInt16, UInt32, UInt32)] {
            let perSample = samples > 2 ? arraysOffset : bits
            let formats = samples > 2 ? arraysOffset + 2 * samples : format
            return [
                (256, 4, 1, width), (257, 4, 1, height), (258, 3, samples, perSample), (259, 3, 1, 1),
                (262, 3, 1, samples >= 3 ? 2 : 1), (273, 4, 1, dataOffset), (277, 3, 1, samples), (278, 4, 1, height),
                (279, 4, 1, UInt32(UInt64(width) * UInt64(height) * UInt64(samples) * UInt64(bits) / 8)), (284, 3, 1, 1), (339, 3, samples, formats),
            ]
        }

        @Test func floatPixelsCountTheirBytes() throws {
            // 9,000 x 9,000 float RGB in one strip: 81 megapixels, under the pixel limit, but a strip
            // of 972 MB (12 bytes a pixel) for libtiff to read whole.
            let arrays = 8 + 2 + 11 * 12 + 4
            let perSample: [UInt8] = [32, 0, 32, 0, 32, 0] + [3, 0, 3, 0, 3, 0]
            let data = Self.tiff(
                [Self.tiffTags(width: 9_000, height: 9_000, samples: 3, bits: 32, format: 3, dataOffset: UInt32(arrays + 12), arraysOffset: UInt32(arrays))],
                tail: perSample + [UInt8](repeating: 0, count: 64)
            )
            let error = DecodeBombTests.refusal(data)
            guard case .overLimit(.tiff, let reason) = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(reason.contains("of 12 bytes each"), "\(reason)")
        }

        @Test func progressiveCMYKJPEGCountsItsCoefficients() throws {
            // 8,000 x 8,000 progressive CMYK: 64 megapixels, but libjpeg holds every coefficient,
            // 2 bytes for each of 4 samples a pixel: 512 MB before the pixels themselves.
            var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC2, 0, 20, 8, 0x1F, 0x40, 0x1F, 0x40, 4]
            for component in 1...4 { bytes += [UInt8(component), 0x11, 0] }
            bytes += [0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 0, 0, 0x00, 0xFF, 0xD9]
            let error = DecodeBombTests.refusal(Data(bytes))
            guard case .overLimit(.jpeg, let reason) = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(reason.contains("coefficients") && reason.contains("of 8 bytes each"), "\(reason)")
        }

        @Test func jpegDecodedTwiceCountsBothDecodes() throws {
            // 60 scans and stray bytes before the end: TurboJPEG decodes every scan, warns, and
            // libvips would decode every scan again (120 in all, over the limit of 100).
            var bytes = [UInt8](try TestImages.fixture("rocket-progressive-split-chroma.jpg"))
            let scans = DecodeBombTests.scans(of: bytes)
            let smallest = try #require(scans.min { $0.count < $1.count })
            bytes.insert(contentsOf: Array([[UInt8]](repeating: Array(bytes[smallest]), count: 60 - scans.count).joined()), at: bytes.count - 2)
            bytes.insert(contentsOf: [UInt8](repeating: 0x55, count: 64), at: bytes.count - 2)
            var options = ImageCoderOptions()
            options.decodeThumbnailPixelSize = CGSize(width: 64, height: 64)
            let error = DecodeBombTests.refusal(Data(bytes), options)
            guard case .overLimit(.jpeg, let reason) = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(reason.contains("decoded twice"), "\(reason)")
            // With room for both decodes, libvips reads it.
            options.decodeMaxScanCount = 120
            #expect(try ImageCodersManager.shared.decode(Data(bytes), options: options).pixelWidth == 64)
        }

        @Test func tiffDirectoriesOfThousandsOfTagsAreRefused() throws {
            // 30 directories of 4,000 unknown tags each (libtiff 4.5 re-sorts its tag table for each
            // unknown tag: 5 s to read the header, 16 s to thumbnail), each on a 1x1 grey image.
            let size = 2 + 4_011 * 12 + 4
            let dataOffset = UInt32(8 + 30 * size)
            let directory = Self.tiffTags(width: 1, height: 1, samples: 1, bits: 8, format: 1, dataOffset: dataOffset, arraysOffset: 0)
                + (0..<4_000).map { (UInt16(40_000 + $0), 3, 1, 0) }
            let data = Self.tiff(Array(repeating: directory.sorted { $0.0 < $1.0 }, count: 30), tail: [0x80])
            #expect(data.count < 2_000_000)
            let error = DecodeBombTests.refusal(data)
            guard case .overLimit(.tiff, let reason) = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(reason.contains("4011 tags"), "\(reason)")
            #expect(throws: ImageCodingError.self) { try ImageHeader(probing: data) }
            // A directory of 40 tags, 29 of them unknown, reads.
            let fewer = Self.tiffTags(width: 1, height: 1, samples: 1, bits: 8, format: 1, dataOffset: UInt32(8 + 2 + 40 * 12 + 4), arraysOffset: 0)
                + (0..<29).map { (UInt16(40_000 + $0), 3, 1, 0) }
            let small = Self.tiff([fewer.sorted { $0.0 < $1.0 }], tail: [0x80])
            #expect(try TestImages.decoded(small).pixelWidth == 1)
        }
    }
}

extension Heavy.DecodeWorkBombTests {
    /// An SVG of `levels` levels of `fan` `<use>` references each, down to one rectangle
    /// covering the `side` x `side` canvas: fan^levels draws of it.
    static func svgOfUses(levels: Int, fan: Int, side: Int) -> Data {
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"\(side)\" height=\"\(side)\"><defs>"
        svg += "<rect id=\"l0\" width=\"\(side)\" height=\"\(side)\" fill=\"#123456\" fill-opacity=\"0.01\"/>"
        for level in 1...levels {
            svg += "<g id=\"l\(level)\">" + String(repeating: "<use xlink:href=\"#l\(level - 1)\"/>", count: fan) + "</g>"
        }
        return Data((svg + "</defs><use xlink:href=\"#l\(levels)\"/></svg>").utf8)
    }

    @Test func svgWhoseReferencesMultiplyIsRefused() throws {
        // 10^5 draws of a full rectangle at 1 megapixel (over a minute before; 10^4 took 4.7 s),
        // and 10^9 (librsvg gave up after 8 s).
        for levels in [5, 9] {
            let error = Heavy.DecodeBombTests.refusal(Self.svgOfUses(levels: levels, fan: 10, side: 1_000))
            guard case .overLimit(.svg, let reason) = error else {
                Issue.record("\(String(describing: error))")
                continue
            }
            #expect(reason.contains("<use> references"), "\(reason)")
        }
        // 100 draws render, full size, and 10^4 as a 64x64 thumbnail.
        #expect(try TestImages.decoded(Self.svgOfUses(levels: 2, fan: 10, side: 1_000)).pixelWidth == 1_000)
        var options = ImageCoderOptions()
        options.decodeThumbnailPixelSize = CGSize(width: 64, height: 64)
        #expect(try ImageCodersManager.shared.decode(Self.svgOfUses(levels: 4, fan: 10, side: 1_000), options: options).pixelWidth == 64)
    }

    @Test func svgFilterOverAHugeCanvasIsRefused() throws {
        func blurred(side: Int) -> Data {
            Data("""
            <svg xmlns="http://www.w3.org/2000/svg" width="\(side)" height="\(side)"><filter id="b"><feGaussianBlur stdDeviation="50"/></filter>\
            <rect width="\(side)" height="\(side)" fill="red" filter="url(#b)"/></svg>
            """.utf8)
        }
        // 100 megapixels blurred (over a minute and 2.3 GB before).
        let error = Heavy.DecodeBombTests.refusal(blurred(side: 10_000))
        guard case .overLimit(.svg, let reason) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(reason.contains("filter primitives"), "\(reason)")
        // The same as a thumbnail, and a blur of a megapixel, render.
        var options = ImageCoderOptions()
        options.decodeThumbnailPixelSize = CGSize(width: 256, height: 256)
        #expect(try ImageCodersManager.shared.decode(blurred(side: 10_000), options: options).pixelWidth == 256)
        #expect(try TestImages.decoded(blurred(side: 1_000)).pixelWidth == 1_000)
    }
}
