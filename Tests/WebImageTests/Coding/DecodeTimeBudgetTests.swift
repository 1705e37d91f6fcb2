import Foundation
import Testing
import WebImageTestServer
import ImageEngine
@testable import WebImage
import WebImageTestSupport

/// The decode's time budget (`decodeTimeBudget`): work that no limit counts is stopped with a
/// typed error, in this process between regions of the pipeline, or in a child process for a
/// PDF page or an SVG that could render for long (poppler and librsvg draw in one call that
/// nothing stops). The budgets set here are far under what each decode takes (tens of
/// milliseconds of CPU time at least, seconds for the bombs), so the outcome does not depend on
/// the machine's load.
@Suite(.offThePool) struct DecodeTimeBudgetTests {
    /// Options whose every budget is `budget`.
    static func options(budget: Duration) -> ImageCoderOptions {
        var options = ImageCoderOptions()
        options.decodeTimeBudget = DecodeTimeBudget(thumbnail: budget, fullSize: budget, animation: budget)
        return options
    }

    /// Expects `body` to be refused for its time budget as `format` (`inChild`: in a child process).
    static func expectOverBudget(
        _ format: ImageFormat, inChild: Bool = false, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
    ) {
        let error = #expect(throws: ImageCodingError.self, sourceLocation: sourceLocation) { try body() }
        guard case .overLimit(format, let reason)? = error else {
            Issue.record("\(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(reason.contains("decodeTimeBudget") && reason.contains("child process") == inChild, "\(reason)", sourceLocation: sourceLocation)
    }

    /// A 2000x2000 deflate TIFF of a gradient (libvips' loader only: no other coder reads TIFF).
    static func largeTIFF() throws -> Data {
        let pixels = PixelBuffer(width: 2_000, height: 2_000, bands: 3) { buffer in
            for row in 0..<2_000 {
                UnsafeMutableRawBufferPointer(rebasing: buffer[(row * 6_000)..<((row + 1) * 6_000)])
                    .initializeMemory(as: UInt8.self, repeating: UInt8(row % 251))
            }
        }
        return try VipsImageRef.wrapping(pixels).save("tiffsave_buffer", options: "compression=deflate")
    }

    @Test func budgetStopsADecodeBetweenRegions() throws {
        let data = try Self.largeTIFF()
        let decoded = try ImageCodersManager.shared.decode(data, options: ImageCoderOptions())
        #expect(decoded.pixelWidth == 2_000)
        Self.expectOverBudget(.tiff) { _ = try ImageCodersManager.shared.decode(data, options: Self.options(budget: .milliseconds(1))) }
    }

    /// A failure in work whose budget (made in this thread during it) is spent is that budget's
    /// stop, though the error libvips left says only what failed after it: another thread's
    /// read of libvips' process-wide error buffer can take the stop's message (a whole-suite
    /// AddressSanitizer run saw a 1 ms budget's stop come out as "corrupt tiff data").
    @Test func aStopWhoseMessageWasTakenIsStillTheBudgets() throws {
        let afterTheStop = VipsError("TIFF: cannot compute pixels")
        func spending(_ limit: Duration) throws(VipsError) {
            let budget = WorkBudget(limit: limit)
            budget.counting {
                let start = WorkBudget.threadCPUTime
                while WorkBudget.threadCPUTime - start < .milliseconds(5) {}
            }
            throw afterTheStop
        }
        let stopped = #expect(throws: VipsError.self) { try WorkBudget.attributingStops { () throws(VipsError) in try spending(.milliseconds(1)) } }
        #expect(stopped?.isOverTimeBudget == true && stopped?.message.hasSuffix(afterTheStop.message) == true, "\(String(describing: stopped))")
        #expect(ImageCodingError(decoding: .tiff, stopped ?? afterTheStop) == .overLimit(format: .tiff, reason: "stopped, its CPU time past its budget (decodeTimeBudget): \(stopped?.message ?? "")"))
        // A budget not spent, or none made inside: the failure as it was.
        #expect(throws: afterTheStop) { try WorkBudget.attributingStops { () throws(VipsError) in try spending(.seconds(60)) } }
        let outside = WorkBudget(limit: .milliseconds(1))
        outside.counting {
            let start = WorkBudget.threadCPUTime
            while WorkBudget.threadCPUTime - start < .milliseconds(5) {}
        }
        #expect(outside.isSpent)
        #expect(throws: afterTheStop) { try WorkBudget.attributingStops { () throws(VipsError) in throw afterTheStop } }
    }

    @Test func budgetStopsALazyDecodeAsItIsEncoded() throws {
        // `webimage convert`'s way: the pixels are decoded as the saver reads them.
        var options = Self.options(budget: .milliseconds(1))
        options.decodeUseLazyDecoding = true
        let image = try ImageCodersManager.shared.decode(Self.largeTIFF(), options: options)
        Self.expectOverBudget(.tiff) { _ = try ImageCodersManager.shared.encode(image, format: .jpeg, options: options) }
    }

    /// Work between a budget's regions in a thread that counts into it (`counting`: drawing on
    /// an APNG's canvas row by row) is counted as it goes: a budget it spends stops the next
    /// region, not only the first region after the work ends. (Counted only at the end, a
    /// 100 MP APNG thumbnail ran 0.5 – 0.9 s past its budget.)
    @Test func workBetweenRegionsSpendsTheBudgetAsItGoes() throws {
        let budget = WorkBudget(limit: .milliseconds(20))
        let image = try VipsImageRef.load("tiffload_buffer", data: Self.largeTIFF()).budgeted(by: budget)
        #expect(throws: VipsError.self) {
            try budget.counting { () throws(VipsError) in
                // 40 ms of this thread's CPU time, outside any region; then a region.
                let start = WorkBudget.threadCPUTime
                var spin = 0
                while WorkBudget.threadCPUTime - start < .milliseconds(40) { spin &+= 1 }
                #expect(spin > 0)
                _ = try image.extractingArea(x: 0, y: 0, width: 16, height: 16).render()
            }
        }
        #expect(budget.isSpent && budget.used >= .milliseconds(40))
    }

    @Test func animationBudgetCoversEveryFrame() throws {
        // 60 frames composed on an 800x800 canvas; the first frame has its own budget.
        let data = Heavy.DecodeWorkBombTests.gifOfOnePixelFrames(side: 800, frames: 60)
        var options = ImageCoderOptions()
        options.decodeTimeBudget.animation = .milliseconds(1)
        let image = try ImageCodersManager.shared.decode(data, options: options)
        #expect(image.frameCount == 60)
        #expect((1..<60).contains { image.frame(at: $0) == nil })
        Self.expectOverBudget(.gif) { _ = try ImageCodersManager.shared.encode(image, format: .webP, options: options) }
        // The default budget reads them all.
        let whole = try TestImages.decoded(data)
        #expect((1..<60).allSatisfy { whole.frame(at: $0) != nil })
    }

    /// An animated WebP save stopped by the budget frees what the encoder held: a server that
    /// refuses hostile animations all day must not grow. libvips 8.14's own saver kept its
    /// animation encoder and canvases after a failed save (about 12 MB a time here; fixed
    /// upstream in 8.15.4, libvips#4107), so 20 refusals peaked 253 MB above one. Measured from
    /// 20 refusals to 60, past the warm-up of libvips' workers and their malloc arenas (the peak
    /// after one refusal is the process's, 90 MB; after 20 about 140 MB, and it stays there).
    @Test func refusedAnimatedWebPSavesKeepNoMemory() async throws {
        let data = Heavy.DecodeWorkBombTests.gifOfOnePixelFrames(side: 1000, frames: 30)
        let arguments = ["--encode", "webp", "--animation-budget", "1", "--repeat"]
        let environment = TestAllowance.peakMeasuringEnvironment
        let twenty = try await Heavy.DecodeWorkBombTests.probePeak(data, arguments + ["20"], outcome: "refused:", environment: environment)
        let sixty = try await Heavy.DecodeWorkBombTests.probePeak(data, arguments + ["60"], outcome: "refused:", environment: environment)
        // 40 refusals more held 480 MB with the leak; the whole suite's load once added 45 MB
        // without it (malloc's arenas, as threads come and go), under a 40 MB bound.
        #expect(sixty - twenty < TestAllowance.bytes(100 << 20), "peak \(twenty >> 20) MB after 20 refusals, \(sixty >> 20) MB after 60")
    }

    // MARK: In a child process

    /// A one-page PDF whose page draws a form that draws another, `levels` deep, each `fan`
    /// times: fan^levels draws of a rectangle in 2 KB (poppler takes minutes for 100^4).
    static func pdfOfNestedForms(levels: Int, fan: Int) -> Data {
        var objects = [
            "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources << /XObject << /F\(levels) \(5 + levels) 0 R >> >> /Contents 4 0 R >>",
        ]
        func stream(_ dictionary: String, _ body: String) -> String {
            "\(dictionary.dropLast(2)) /Length \(body.utf8.count) >>\nstream\n\(body)\nendstream"
        }
        objects.append(stream("<< >>", "/F\(levels) Do"))
        objects.append(stream("<< /Type /XObject /Subtype /Form /BBox [0 0 200 200] >>", "0 0 200 200 re f"))
        for level in 1...levels {
            let body = Array(repeating: "/F\(level - 1) Do", count: fan).joined(separator: " ")
            objects.append(stream(
                "<< /Type /XObject /Subtype /Form /BBox [0 0 200 200] /Resources << /XObject << /F\(level - 1) \(4 + level) 0 R >> >> >>", body
            ))
        }
        var file = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (number, body) in objects.enumerated() {
            offsets.append(file.utf8.count)
            file += "\(number + 1) 0 obj\n\(body)\nendobj\n"
        }
        let table = file.utf8.count
        file += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { file += String(repeating: "0", count: 10 - String(offset).count) + "\(offset) 00000 n \n" }
        file += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(table)\n%%EOF\n"
        return Data(file.utf8)
    }

    @Test func pdfDrawingAFormHundredsOfMillionsOfTimesIsStopped() throws {
        let data = Self.pdfOfNestedForms(levels: 4, fan: 100)
        // At full size and as a thumbnail: poppler draws the whole page either way.
        var thumbnail = Self.options(budget: .milliseconds(300))
        thumbnail.decodeThumbnailPixelSize = CGSize(width: 64, height: 64)
        for options in [Self.options(budget: .milliseconds(300)), thumbnail] {
            Self.expectOverBudget(.pdf, inChild: true) { _ = try ImageCodersManager.shared.decode(data, options: options) }
        }
        // Two levels (10^4 draws) render.
        #expect(try TestImages.decoded(Self.pdfOfNestedForms(levels: 2, fan: 100)).pixelWidth == 200)
    }

    @Test func pdfRenderedInAChildProcessHasLibvipsPixels() throws {
        let data = try TestImages.data("sdwebimage/TestImage.pdf")
        let image = try TestImages.decoded(data)
        let libvips = try VipsImageRef.load("pdfload_buffer", data: data).render()
        #expect(try image.renderedPixels().withUnsafeBytes { Array($0) } == libvips.withUnsafeBytes { Array($0) })
    }

    /// An SVG of `count` `side` x `side` squares, nearly transparent, on a 1000x1000 canvas.
    static func svgOfSquares(count: Int, side: Int) -> Data {
        let square = "<rect width=\"\(side)\" height=\"\(side)\" fill=\"#123456\" fill-opacity=\".01\"/>"
        return Data(("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1000\" height=\"1000\">"
            + String(repeating: square, count: count) + "</svg>").utf8)
    }

    @Test func svgOfThousandsOfShapesIsStoppedInAChildProcess() throws {
        // 4,000 squares over the whole canvas: 4 x 10^9 pixels drawn, seconds of librsvg's one call.
        Self.expectOverBudget(.svg, inChild: true) {
            _ = try ImageCodersManager.shared.decode(Self.svgOfSquares(count: 4_000, side: 1_000), options: Self.options(budget: .milliseconds(300)))
        }
    }

    @Test func svgThatCouldRenderLongRendersInAChildProcess() throws {
        // As many squares, small: what they could cost sends them to the child, which draws
        // them as libvips does here.
        let data = Self.svgOfSquares(count: 4_000, side: 10)
        #expect(!SVGWork(data).rendersWithinBudget(outputPixels: 1_000_000))
        let image = try TestImages.decoded(data)
        let libvips = try VipsImageRef.load("svgload_buffer", data: data).render()
        #expect(try image.renderedPixels().withUnsafeBytes { Array($0) } == libvips.withUnsafeBytes { Array($0) })
        // Twenty of them render here.
        #expect(SVGWork(Self.svgOfSquares(count: 20, side: 10)).rendersWithinBudget(outputPixels: 1_000_000))
    }

    @Test func isolatedRendererReportsTheLoadersFailure() throws {
        let renderer = try #require(IsolatedRenderer.standard)
        #expect(throws: IsolatedRenderer.Failure.self) {
            try renderer.render("svgload_buffer", options: "", loaderOptions: nil, data: Data("<svg".utf8), budget: .seconds(2))
        }
    }

    /// The renderer's child holds nothing of the host's but what it is given: a pipe the host made
    /// without O_CLOEXEC (as Foundation's `Pipe` is) would otherwise stay open in it, and the
    /// pipe's reader would wait for the render's end to see its end of file. A shell script stands
    /// for the renderer (the shell is the program, the script its first argument, where the
    /// operation goes) and fails saying how many descriptors it holds and whether the host's
    /// pipe is one; the failure reports what it said.
    @Test func theRenderersChildInheritsNoDescriptorOfTheHost() throws {
        let hostPipe = Pipe()
        let hostEnd = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(hostPipe.fileHandleForWriting.fileDescriptor)")
        #expect(hostEnd.hasPrefix("pipe:["))
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-fds-" + UUID().uuidString)
        try Data("""
            set -- /proc/$$/fd/*
            count=$# held=no
            for fd; do [ "$(readlink "$fd")" = "\(hostEnd)" ] && held=yes; done
            echo "descriptors $count host-pipe $held" >&2
            exit 3

            """.utf8).write(to: script)
        defer { try? FileManager.default.removeItem(at: script) }
        var report = ""
        do {
            _ = try IsolatedRenderer(executable: "/bin/sh").render(script.path, options: "", loaderOptions: nil, data: Data("<svg".utf8), budget: .seconds(2))
        } catch .failed(let message) {
            report = message
        } catch {
            Issue.record("\(error)")
        }
        let fields = report.split(separator: " ")
        #expect(fields.count == 4 && fields[3] == "no", "the child holds the host's pipe: \(report)")
        // Its input, output and error streams (two memory files and its error pipe), and the shell's
        // own two (dash moves the script it reads, and a copy of a stream, above 9).
        #expect(fields.count == 4 && (Int(fields[1]) ?? .max) <= 5, "\(report)")
        try hostPipe.fileHandleForWriting.close()
    }
}

// MARK: Work between two checks

extension DecodeTimeBudgetTests {
    /// What a decode the budget stops may take past its budget, in CPU time of the work (every
    /// thread of the decoding process, its start left out): the header reads and checks, which
    /// the budget does not count, and the last row of blocks (a progressive JPEG), row of
    /// macroblocks (WebP) or rows of a kernel before the check that sees the budget spent.
    /// Stretched under a sanitizer (`unstretchedStopMargin` as it is on a plain build).
    static let stopMargin = TestAllowance.time(unstretchedStopMargin)
    static let unstretchedStopMargin = Duration.milliseconds(50)

    /// A progressive JPEG of mid-grey whose scans are mostly AC refinements, as
    /// scripts/decode-bombs/bombs.py writes it (`jpeg_refinement_scans`): each band of each
    /// component sent at Al 13, then refined 13 times down to 0, every coefficient zero. Each
    /// refinement scan walks every block of its component on a few bytes of end-of-band runs,
    /// each coefficient of its band in each block: 4:4:4 (`subsampled` false) has twice the
    /// blocks of 4:2:0 at the same size and scan count.
    static func jpegOfRefinementScans(width: Int, height: Int, lumaBands: Int, chromaBands: Int, subsampled: Bool = true) -> Data {
        func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
            [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        }
        func big16(_ value: Int) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
        var bytes: [UInt8] = [0xFF, 0xD8] + segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        bytes += segment(0xC2, [8] + big16(height) + big16(width) + [3, 1, subsampled ? 0x22 : 0x11, 0, 2, 0x11, 0, 3, 0x11, 0])
        // DC: category 0 in one bit. AC: the end-of-band runs EOB0 to EOB14, 4 bits each.
        bytes += segment(0xC4, [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0])
        bytes += segment(0xC4, [0x10, 0, 0, 0, 15] + [UInt8](repeating: 0, count: 12) + (0..<15).map { UInt8($0 << 4) })
        // The DC scan, interleaved: six blocks a 16x16 MCU (4:2:0) or three an 8x8 one (4:4:4),
        // one zero bit each, padded with ones.
        let mcu = subsampled ? 16 : 8
        let bits = (width + mcu - 1) / mcu * ((height + mcu - 1) / mcu) * (subsampled ? 6 : 3)
        bytes += segment(0xDA, [3, 1, 0, 2, 0, 3, 0, 0, 0, 0]) + [UInt8](repeating: 0, count: bits / 8)
        if bits % 8 != 0 { bytes.append(UInt8((1 << (8 - bits % 8)) - 1)) }
        // Each component's size in halves of the image's: 2, whole; 1, half.
        for (component, sampling) in [(UInt8(1), 2), (2, subsampled ? 1 : 2), (3, subsampled ? 1 : 2)] {
            let blocks = ((width * sampling + 1) / 2 + 7) / 8 * (((height * sampling + 1) / 2 + 7) / 8)
            let data = endOfBandRuns(blocks: blocks)
            let bandCount = component == 1 ? lumaBands : chromaBands
            let step = (63 + bandCount - 1) / bandCount
            for start in stride(from: 1, through: 63, by: step) {
                for (high, low) in [(0, 13)] + (0...12).reversed().map({ ($0 + 1, $0) }) {
                    bytes += segment(0xDA, [1, component, 0, UInt8(start), UInt8(min(63, start + step - 1)), UInt8(high << 4 | low)]) + data
                }
            }
        }
        return Data(bytes + [0xFF, 0xD9])
    }

    /// The entropy-coded data of a progressive AC scan of `blocks` all-zero blocks: end-of-band
    /// runs of up to 32,767 blocks, EOBr coded as r in 4 bits then r extra bits, 0xFF stuffed.
    static func endOfBandRuns(blocks: Int) -> [UInt8] {
        var out: [UInt8] = []
        var bits = 0
        var count = 0
        func write(_ value: Int, _ size: Int) {
            bits = bits << size | value & ((1 << size) - 1)
            count += size
            while count >= 8 {
                count -= 8
                let byte = UInt8(bits >> count & 0xFF)
                out.append(byte)
                if byte == 0xFF { out.append(0) }
            }
            bits &= (1 << count) - 1
        }
        var left = blocks
        while left > 0 {
            let run = min(left, 32_767)
            let r = Int.bitWidth - 1 - run.leadingZeroBitCount
            write(r, 4)
            write(run - (1 << r), r)
            left -= run
        }
        if count > 0 { write((1 << (8 - count)) - 1, 8 - count) }
        return out
    }

    /// Expects `data` decoded in decode-probe (`arguments`: its thumbnail size, if any) with a
    /// budget of `budget` to be stopped by it within `budget` and `stopMargin` of the process's
    /// CPU time (every thread: libvips' workers too, where a loader decoding in them once went
    /// unseen), and with no budget in the way to take more than that, so that the bound tells a
    /// stop within a unit of work from one at its end.
    static func expectStoppedInTime(
        _ data: Data, _ format: ImageFormat, _ arguments: [String] = [], budget: Duration, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let milliseconds = Int(budget / .milliseconds(1))
        let stopped = try await Heavy.DecodeWorkBombTests.probe(data, arguments + ["--budget", "\(milliseconds)"], sourceLocation: sourceLocation)
        #expect(
            stopped.outcome.hasPrefix("refused: \(format) over a decode limit") && stopped.outcome.contains("decodeTimeBudget"),
            "\(stopped.outcome)", sourceLocation: sourceLocation
        )
        #expect(stopped.cpu < budget + stopMargin, "stopped after \(stopped.cpu) of CPU time", sourceLocation: sourceLocation)
        let whole = try await Heavy.DecodeWorkBombTests.probe(data, arguments + ["--budget", "600000"], sourceLocation: sourceLocation)
        #expect(whole.outcome.hasPrefix("decoded"), "\(whole.outcome)", sourceLocation: sourceLocation)
        // Against the plain build's margin: a sanitizer slows our code, for which the margin
        // stretches, not the C decoders' work (ThreadSanitizer's run here: 0.12 s of a whole
        // decode against a stretched 0.22 s).
        #expect(whole.cpu > budget + unstretchedStopMargin, "the whole decode took \(whole.cpu) of CPU time", sourceLocation: sourceLocation)
    }

    /// A progressive JPEG decoded whole at most 4 MP (TurboJPEG's decode, by libjpeg's API)
    /// and over (libvips, through our reader): libjpeg reads every scan before the first row,
    /// and the budget stopped it only once all were read (a 100 MP file: 3.6 s of CPU for a
    /// 3 s budget, through `webimage convert`). 4:4:4, so that the whole 4 MP decode is well
    /// over the budget and its margin on a fast machine (4:2:0: 0.068 s of CPU once, against
    /// the 0.07 s the bound needs).
    @Test(arguments: [2_000, 4_000])
    func aProgressiveJPEGStopsWithinARowOfBlocks(side: Int) async throws {
        let data = Self.jpegOfRefinementScans(width: side, height: side, lumaBands: 4, chromaBands: 1, subsampled: false)
        try await Self.expectStoppedInTime(data, .jpeg, budget: .milliseconds(20))
    }

    /// Thumbnails of one: at 1/8 (TurboJPEG's thumbnail reads only the chroma scans of a
    /// 4:2:0 file, which its smaller IDCT needs whole) and at 1/2 (libvips' thumbnail of our
    /// reader's rows).
    @Test(arguments: [64, 1_500])
    func aProgressiveJPEGThumbnailStopsWithinARowOfBlocks(side: Int) async throws {
        let data = Self.jpegOfRefinementScans(width: 4_000, height: 4_000, lumaBands: 1, chromaBands: 3)
        try await Self.expectStoppedInTime(data, .jpeg, ["--thumbnail", "\(side)"], budget: .milliseconds(20))
    }
}

// MARK: WebP

extension DecodeTimeBudgetTests {
    /// A lossy WebP of `side` x `side` of diagonal stripes (work for libwebp in every
    /// macroblock), encoded fast by libvips' saver.
    static func lossyWebP(side: Int) throws -> Data {
        let stripes = PixelBuffer(width: side, height: side, bands: 3) { buffer in
            for row in 0..<side {
                for column in 0..<side {
                    let at = (row * side + column) * 3
                    buffer[at] = UInt8(truncatingIfNeeded: row &+ column)
                    buffer[at + 1] = UInt8(truncatingIfNeeded: row &* 3)
                    buffer[at + 2] = UInt8(truncatingIfNeeded: column &* 5)
                }
            }
        }
        return try VipsImageRef.wrapping(stripes).save("webpsave_buffer", options: "Q=90,effort=0")
    }

    /// libvips' WebP loader decoded the whole image in its workers into a temporary image,
    /// where the budget saw none of it (a 100 MP WebP decoded whole whatever the budget); ours
    /// decodes in the thread the budget counts, and libwebp's row jobs ask it.
    @Test func aLossyWebPStopsWithinARowOfMacroblocks() async throws {
        let data = try Self.lossyWebP(side: 4_000)
        try await Self.expectStoppedInTime(data, .webP, budget: .milliseconds(20))
    }

    /// A lossless WebP of `width` x `height` whose every prefix code has one symbol (its pixels
    /// take no bits), through a predictor, a cross-colour and a subtract-green transform, as
    /// scripts/decode-bombs/bombs.py writes it (`webp_lossless_constant`): libwebp decodes it
    /// in one call that calls nothing back.
    static func losslessWebPOfNoBits(width: Int, height: Int) -> Data {
        var bits: UInt64 = 0
        var count = 0
        var bytes: [UInt8] = []
        func put(_ value: Int, _ size: Int) {
            bits |= UInt64(value) << UInt64(count)
            count += size
            while count >= 8 {
                bytes.append(UInt8(bits & 0xFF))
                bits >>= 8
                count -= 8
            }
        }
        func oneSymbolCodes(_ green: Int, _ red: Int, _ blue: Int, _ alpha: Int) {
            for symbol in [green, red, blue, alpha] { put(1, 1); put(0, 1); put(1, 1); put(symbol, 8) }
            put(1, 1); put(0, 1); put(0, 1); put(0, 1)
        }
        put(0x2F, 8)
        put(width - 1, 14); put(height - 1, 14); put(0, 1); put(0, 3)
        put(1, 1); put(0, 2); put(0, 3); put(0, 1)
        oneSymbolCodes(13, 0, 0, 255)
        put(1, 1); put(1, 2); put(0, 3); put(0, 1)
        oneSymbolCodes(0x25, 0x13, 0x31, 255)
        put(1, 1); put(2, 2); put(0, 1); put(0, 1); put(0, 1)
        oneSymbolCodes(0x40, 0x20, 0x10, 255)
        if count > 0 { bytes.append(UInt8(bits & 0xFF)) }
        func little32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let chunk = Array("VP8L".utf8) + little32(bytes.count) + bytes + (bytes.count % 2 == 1 ? [0] : [])
        let payload = Array("WEBP".utf8) + chunk
        return Data(Array("RIFF".utf8) + little32(payload.count) + payload)
    }

    @Test func aLargeLosslessWebPDecodesInAChildProcess() throws {
        let data = Self.losslessWebPOfNoBits(width: 4_000, height: 3_000)
        Self.expectOverBudget(.webP, inChild: true) {
            _ = try ImageCodersManager.shared.decode(data, options: Self.options(budget: .milliseconds(20)))
        }
        // In the child, as libvips decodes it here.
        let image = try TestImages.decoded(data)
        #expect(image.pixelWidth == 4_000 && !image.hasAlpha)
        let small = Self.losslessWebPOfNoBits(width: 64, height: 48)
        let libvips = try VipsImageRef.load("webpload_buffer", data: data).normalizedToSRGB().withAlpha().render()
        #expect(try image.renderedPixels().withUnsafeBytes { Array($0) } == libvips.withUnsafeBytes { Array($0) })
        // A small one decodes here.
        #expect(try TestImages.decoded(small).pixelWidth == 64)
    }
}
