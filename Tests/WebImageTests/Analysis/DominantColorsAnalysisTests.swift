import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// The six dominant colours, chosen as Android's Palette chooses them.
@Suite("Analysis: dominant colours", .offThePool) struct DominantColorsAnalysisTests {
    static let expected: [(DominantColors.Target, RGBA8)] = [
        (.init(kind: .vibrant, row: .normal), RGBA8(red: 230, green: 20, blue: 20)),
        (.init(kind: .vibrant, row: .light), RGBA8(red: 120, green: 170, blue: 250)),
        (.init(kind: .vibrant, row: .dark), RGBA8(red: 10, green: 110, blue: 30)),
        (.init(kind: .muted, row: .normal), RGBA8(red: 100, green: 120, blue: 150)),
        (.init(kind: .muted, row: .light), RGBA8(red: 190, green: 200, blue: 215)),
        (.init(kind: .muted, row: .dark), RGBA8(red: 50, green: 55, blue: 70)),
    ]

    /// Six bands of one colour each, one per target: each target finds its own (within the
    /// 5-bit steps the quantiser cuts colours to).
    @Test func eachTargetFindsItsColour() throws {
        let image = try AnalysisImages.image(width: 60, height: 20) { x, _ in Self.expected[x / 10].1 }
        let colors = try ImageAnalysis(image: image).dominantColors()
        for (target, color) in Self.expected {
            let found = try #require(colors[target], "\(target)")
            #expect(found.distance(to: color) <= 8, "\(target): \(found), expected \(color)")
        }
    }

    /// On photos, every swatch found lies in its target's lightness and saturation ranges.
    @Test(arguments: ["photos/rocket.jpg", "photos/astronaut.png", "photos/motorcycle_left.png", "sdwebimage/TestImageStatic.webp", "webp/lossy_alpha1.webp"])
    func swatchesOfPhotosFitTheirTargets(file: String) throws {
        let analysis = try AnalysisImages.analysis(file)
        let found = analysis.dominantColors()
        let targets = DominantColors.Target.all.filter { found[$0] != nil }
        #expect(targets.count >= 2, "\(file): \(found)")
        for target in targets {
            let hsl = HSL(try #require(found[target]))
            #expect(target.accepts(hsl), "\(file) \(target): \(hsl)")
        }
        // No swatch is used twice.
        let colors = targets.compactMap { found[$0] }
        #expect(Set(colors).count == colors.count)
        // Built: all six, the found ones unchanged, the built ones in their ranges.
        let built = analysis.dominantColors(buildingMissing: true)
        for target in DominantColors.Target.all {
            let color = try #require(built[target], "\(file) \(target)")
            if let original = found[target] { #expect(color == original) } else { #expect(target.accepts(HSL(color)), "\(file) \(target): built \(HSL(color))") }
        }
    }

    /// One vibrant red: the muted and the light and dark swatches are built from it, its hue kept.
    @Test func missingSwatchesAreBuiltFromFoundOnes() throws {
        let red = RGBA8(red: 230, green: 20, blue: 20)
        let analysis = try ImageAnalysis(image: try AnalysisImages.image(width: 10, height: 10) { _, _ in red })
        let found = analysis.dominantColors()
        #expect(found.vibrant != nil && found.muted == nil && found.lightVibrant == nil && found.darkMuted == nil)
        let built = analysis.dominantColors(buildingMissing: true)
        for target in DominantColors.Target.all {
            let hsl = HSL(try #require(built[target], "\(target)"))
            #expect(target.accepts(hsl) && (hsl.hue < 3 || hsl.hue > 357), "\(target): \(hsl)")
        }
    }

    /// A grey image has muted swatches and no vibrant one, built or not (a grey has no hue to
    /// make one of); a transparent image has none at all.
    @Test func greyAndTransparentImages() throws {
        let grey = try ImageAnalysis(image: try AnalysisImages.image(width: 16, height: 16) { x, _ in
            let v = UInt8(60 + x * 8)
            return RGBA8(red: v, green: v, blue: v)
        })
        for colors in [grey.dominantColors(), grey.dominantColors(buildingMissing: true)] {
            #expect(colors.vibrant == nil && colors.lightVibrant == nil && colors.darkVibrant == nil)
            #expect(colors.muted != nil)
        }
        let clear = try ImageAnalysis(image: try AnalysisImages.image(width: 16, height: 16) { _, _ in RGBA8(red: 200, green: 0, blue: 0, alpha: 0) })
        #expect(clear.dominantColors(buildingMissing: true) == DominantColors())
    }

    @Test func hslRoundTrips() {
        for value in stride(from: 0, to: 1 << 24, by: 9973) {
            let color = RGBA8(red: UInt8(value >> 16), green: UInt8(value >> 8 & 255), blue: UInt8(value & 255))
            #expect(HSL(color).rgb.distance(to: color) <= 1, "\(color): \(HSL(color))")
        }
    }
}
