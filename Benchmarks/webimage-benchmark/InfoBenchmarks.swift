import Foundation
import WebImage

/// What `/info` costs against the thumbnail a server would make of the same file (issue 42's
/// bounds: the defaults, which read headers only, at most 0.3x a 300x300 thumbnail's CPU; the
/// placeholders, which decode one 100-pixel copy, at most 1.3x): `ImageInfo(data:)` with the
/// defaults, and with `bh:4:3/th:1/dc:1`, each against a 300x300 thumbnail decode of the file.
enum InfoBenchmarks {
    static let paths = ["photos/rocket.jpg", "photos/astronaut.png", "sdwebimage/TestImageLarge.jpg"]

    static func run() throws {
        let testdata = try CoderBenchmarks.testdataDirectory()
        print("\n== /info: ImageInfo(data:) / a 300x300 thumbnail decode of the same file ==")
        print("load average at start: \(CoderBenchmarks.loadAverage())")
        var thumbnail = ImageCoderOptions()
        thumbnail.decodeThumbnailPixelSize = CGSize(width: 300, height: 300)
        let cases = [("defaults", try InfoOptions(parsing: "")), ("bh:4:3/th:1/dc:1", try InfoOptions(parsing: "bh:4:3/th:1/dc:1"))]
        for path in paths {
            let data = try Data(contentsOf: testdata.appendingPathComponent(path))
            for (name, options) in cases {
                let measured = try PairedRatio(rounds: 21, ours: {
                    _ = try ImageInfo(data: data, options: options).jsonData()
                }, baseline: {
                    _ = try ImageCodersManager.shared.decode(data, options: thumbnail).encodedData(format: .jpeg)
                })
                measured.printed("\(path) info \(name)", baselineLabel: "300x300 thumbnail")
            }
        }
        print("load average at end: \(CoderBenchmarks.loadAverage())")
    }
}
