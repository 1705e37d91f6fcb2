import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// The average colour against the mean of the whole image at full size (Pillow's decode).
@Suite("Analysis: average colour", .offThePool) struct AverageColorAnalysisTests {
    /// From the thumbnail, within 3 levels of the full-size mean, transparent pixels counted by
    /// their alpha in both.
    @Test func isWithinThreeOfTheFullImageMean() async throws {
        let files = AnalysisImages.opaque + AnalysisImages.transparent
        let answers = try await AnalysisReference.answers(files.map { .mean($0) })
        var report: [String] = []
        for (file, answer) in zip(files, answers) {
            let mean = try #require(answer)
            let (red, green, blue) = (try #require(mean.red), try #require(mean.green), try #require(mean.blue))
            let ours = try AnalysisImages.analysis(file).averageColor()
            let difference = max(abs(Double(ours.red) - red), abs(Double(ours.green) - green), abs(Double(ours.blue) - blue))
            report.append("\(file): ours \(ours), full image (\(String(format: "%.1f, %.1f, %.1f", red, green, blue))), \(String(format: "%.2f", difference)) apart")
            #expect(difference <= 3, "\(file): ours \(ours), full image \(red), \(green), \(blue)")
        }
        print(report.joined(separator: "\n"))
    }

    /// Transparent pixels count not at all by default, as much as any other without; the alpha
    /// given is the mean alpha.
    @Test func transparentPixelsAreIgnoredByDefault() throws {
        // Left half opaque red, right half transparent green.
        let image = try AnalysisImages.image(width: 20, height: 10) { x, _ in
            x < 10 ? RGBA8(red: 255, green: 0, blue: 0) : RGBA8(red: 0, green: 255, blue: 0, alpha: 0)
        }
        let analysis = try ImageAnalysis(image: image)
        #expect(analysis.averageColor() == RGBA8(red: 255, green: 0, blue: 0, alpha: 128))
        #expect(analysis.averageColor(ignoringTransparent: false) == RGBA8(red: 128, green: 128, blue: 0, alpha: 128))
    }

    @Test func aFullyTransparentImageHasNoColour() throws {
        let image = try AnalysisImages.image(width: 7, height: 5) { _, _ in RGBA8(red: 10, green: 20, blue: 30, alpha: 0) }
        let analysis = try ImageAnalysis(image: image)
        #expect(analysis.averageColor() == .clear)
        #expect(analysis.averageColor(ignoringTransparent: false) == RGBA8(red: 10, green: 20, blue: 30, alpha: 0))
    }
}
