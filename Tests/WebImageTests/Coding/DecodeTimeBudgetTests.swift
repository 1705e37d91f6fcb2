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
        let data = DecodeWorkBombTests.gifOfOnePixelFrames(side: 800, frames: 60)
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
        let data = DecodeWorkBombTests.gifOfOnePixelFrames(side: 1000, frames: 30)
        let arguments = ["--encode", "webp", "--animation-budget", "1", "--repeat"]
        let environment = TestAllowance.peakMeasuringEnvironment
        let twenty = try await DecodeWorkBombTests.probePeak(data, arguments + ["20"], outcome: "refused:", environment: environment)
        let sixty = try await DecodeWorkBombTests.probePeak(data, arguments + ["60"], outcome: "refused:", environment: environment)
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
}
