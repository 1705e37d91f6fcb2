import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// The N-colour palette, against Pillow's median cut of the same pixels.
@Suite("Analysis: palette", .offThePool) struct PaletteAnalysisTests {
    /// The mean squared distance from each pixel to the nearest colour of `palette`.
    static func quantisationError(_ rgba: [UInt8], _ palette: [[Int]]) -> Double {
        var total = 0.0
        for offset in stride(from: 0, to: rgba.count, by: 4) {
            var nearest = Int.max
            for color in palette {
                let (dr, dg, db) = (Int(rgba[offset]) - color[0], Int(rgba[offset + 1]) - color[1], Int(rgba[offset + 2]) - color[2])
                nearest = min(nearest, dr * dr + dg * dg + db * db)
            }
            total += Double(nearest)
        }
        return total / Double(rgba.count / 4)
    }

    /// On the pixels the analysis reads, our palette's quantisation error is within 1.5x that
    /// of Pillow's median cut to as many colours (the issue's bar), from 2 to 256 colours.
    @Test func quantisesWithinOneAndAHalfTimesPillowsMedianCut() async throws {
        let cases = ["photos/rocket.jpg", "photos/astronaut.png", "photos/motorcycle_left.png", "sdwebimage/TestImageStatic.webp",
                     "photos/hubble_deep_field.jpg", "libjpeg-turbo/testorig.jpg"].flatMap { file in [2, 8, 16, 64].map { (file, $0) } }
            + [("photos/rocket.jpg", 256), ("photos/astronaut.png", 5)]
        var analyses: [String: ImageAnalysis] = [:]
        for (file, _) in cases where analyses[file] == nil { analyses[file] = try AnalysisImages.analysis(file) }
        // Each image's pixels in a file for Pillow, for the whole run.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-palette-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var tasks: [AnalysisReference.Task] = []
        for (index, (file, count)) in cases.enumerated() {
            let analysis = try #require(analyses[file])
            let url = folder.appendingPathComponent("\(index).rgba")
            try Data(analysis.rgba).write(to: url)
            tasks.append(.palette(rgbaFile: url, width: analysis.pixelWidth, height: analysis.pixelHeight, count: count))
        }
        let answers = try await AnalysisReference.answers(tasks)
        var report: [String] = []
        for ((file, count), answer) in zip(cases, answers) {
            let analysis = try #require(analyses[file])
            let pillow = try #require(answer?.colors).map { $0.map(Int.init) }
            let ours = try analysis.palette(count: count)
            #expect(ours.count <= count && !ours.isEmpty)
            let ourError = Self.quantisationError(analysis.rgba, ours.map { [Int($0.red), Int($0.green), Int($0.blue)] })
            let pillowError = Self.quantisationError(analysis.rgba, pillow)
            report.append("\(file) \(count) colours: ours \(String(format: "%.1f", ourError)), Pillow \(String(format: "%.1f", pillowError)) (\(pillow.count) colours), ratio \(String(format: "%.2f", ourError / max(pillowError, 1e-9)))")
            #expect(ourError <= 1.5 * pillowError, "\(file) \(count): ours \(ourError), Pillow \(pillowError)")
        }
        print(report.joined(separator: "\n"))
    }

    @Test func countsOutOfRangeAreRefused() throws {
        let analysis = try AnalysisImages.analysis("photos/rocket.jpg")
        for count in [Int.min, -1, 0, 1, 257, Int.max] {
            #expect(throws: ImageAnalysisError.colorCountOutOfRange(count)) { try analysis.palette(count: count) }
        }
        #expect(try analysis.palette(count: 2).count == 2)
        #expect(try analysis.palette(count: 256).count > 100)
    }

    /// An image of three colours gives those three, the most used first, however many are asked for.
    @Test func fewerColoursThanAskedGiveThemAll() throws {
        let (red, green, blue) = (RGBA8(red: 255, green: 0, blue: 0), RGBA8(red: 0, green: 255, blue: 0), RGBA8(red: 0, green: 0, blue: 255))
        let image = try AnalysisImages.image(width: 30, height: 10) { x, _ in x < 15 ? red : x < 25 ? green : blue }
        let analysis = try ImageAnalysis(image: image)
        #expect(try analysis.palette(count: 16) == [red, green, blue])
        #expect(try analysis.palette(count: 2).count == 2)
    }

    /// Transparent pixels count for nothing: a transparent image has no palette, a half
    /// transparent one only its visible colour.
    @Test func transparentPixelsAreLeftOut() throws {
        let clear = try AnalysisImages.image(width: 8, height: 8) { _, _ in RGBA8(red: 40, green: 50, blue: 60, alpha: 0) }
        #expect(try ImageAnalysis(image: clear).palette(count: 8).isEmpty)
        let half = try AnalysisImages.image(width: 8, height: 8) { x, _ in x < 4 ? RGBA8(red: 40, green: 50, blue: 60, alpha: 0) : RGBA8(red: 1, green: 2, blue: 3) }
        #expect(try ImageAnalysis(image: half).palette(count: 8) == [RGBA8(red: 1, green: 2, blue: 3)])
    }

    @Test func isDeterministic() throws {
        let analysis = try AnalysisImages.analysis("photos/astronaut.png")
        #expect(try analysis.palette(count: 12) == analysis.palette(count: 12))
    }
}
