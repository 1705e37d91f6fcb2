import Foundation
import ImageEngine

/// Our animated WebP saver (`savedAsAnimatedWebP`, libwebp's WebPAnimEncoder, written because
/// libvips 8.14's saver leaks on a failed save) against libvips' webpsave with the same
/// settings, both encoding one strip decoded into memory beforehand; output sizes are printed
/// beside.
enum WebPAnimationBenchmarks {
    static let cases: [(path: String, loader: String)] = [
        ("sdwebimage/TestImage.gif", "gifload_buffer"), ("sdwebimage/TestImageAnimated.webp", "webpload_buffer"),
    ]

    static func run() throws {
        let testdata = try CoderBenchmarks.testdataDirectory()
        print("\n== Animated WebP save: ours (libwebp directly) / libvips webpsave, Q=75 ==")
        print("load average at start: \(CoderBenchmarks.loadAverage())")
        for (path, loader) in cases {
            let data = try Data(contentsOf: testdata.appendingPathComponent(path))
            // Every frame decoded once, before: both savers encode the same pixels from memory.
            let loaded = try VipsImageRef.load(loader, data: data, options: "n=-1")
            let source = try VipsImageRef.wrapping(loaded.render())
                .withAnimation(pageHeight: loaded.pageHeight, delays: loaded.delays, loop: loaded.loop ?? 0)
            let ours = try source.savedAsAnimatedWebP(quality: 75, keepsMetadata: false)
            let theirs = try source.save("webpsave_buffer", options: "Q=75,strip=true")
            print("\(path): \(source.height / source.pageHeight) frames, \(ours.count) bytes / \(theirs.count) bytes")
            let measured = try PairedRatio(rounds: 15, ours: {
                _ = try source.savedAsAnimatedWebP(quality: 75, keepsMetadata: false)
            }, baseline: {
                _ = try source.save("webpsave_buffer", options: "Q=75,strip=true")
            })
            measured.printed(path, baselineLabel: "libvips webpsave")
        }
        print("load average at end: \(CoderBenchmarks.loadAverage())")
    }
}
