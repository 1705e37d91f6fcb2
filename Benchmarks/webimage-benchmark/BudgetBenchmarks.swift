import Foundation
import ImageEngine

/// What the decode time budget costs: each libvips decode the coders make runs under a
/// `WorkBudget`, a pass-through image that counts the CPU time of every region it computes
/// (`budgeted(by:)`). Measured on the formats libvips decodes for us (the JPEG and PNG fast
/// paths do not use it), a thumbnail and a whole decode each, against the same pipeline without
/// the pass-through.
enum BudgetBenchmarks {
    static let cases: [(path: String, loader: String)] = [
        ("sdwebimage/TestImageStatic.webp", "webpload_buffer"),
        ("sdwebimage/TestImage.heic", "heifload_buffer"),
        ("sdwebimage/TestImage.gif", "gifload_buffer"),
        ("sdwebimage/TestImageLarge.png", "pngload_buffer"),
    ]

    static func run() throws {
        let testdata = try CoderBenchmarks.testdataDirectory()
        print("\n== Decode time budget: the pipeline with its pass-through image / without ==")
        print("load average at start: \(CoderBenchmarks.loadAverage())")
        for (path, loader) in cases {
            let data = try Data(contentsOf: testdata.appendingPathComponent(path))
            let jobs: [(String, () throws -> VipsImageRef)] = [
                ("thumbnail 300x200", { try VipsImageRef.load("thumbnail_buffer", data: data, options: "width=300,height=200") }),
                ("whole decode", { try VipsImageRef.load(loader, data: data) }),
            ]
            for (name, load) in jobs {
                let measured = try PairedRatio(rounds: 31, ours: {
                    _ = try load().budgeted(by: WorkBudget(limit: .seconds(60))).renderRGBA()
                }, baseline: {
                    _ = try load().renderRGBA()
                })
                measured.printed("\(path) \(name)", baselineLabel: "no budget")
            }
        }
        print("load average at end: \(CoderBenchmarks.loadAverage())")
    }
}
