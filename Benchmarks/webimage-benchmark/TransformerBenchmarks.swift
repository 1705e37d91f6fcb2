import CBenchmarkBaselines
import Foundation
import ImageEngine
import WebImage

/// Each transformer on decoded images (our public API) against the same libvips operations
/// called directly from C on the same pixels in this process; a chain run as one pipeline
/// against the same steps with a bitmap in between; and the resident memory a player adds
/// while playing a 300-frame animation with a 20 MB frame buffer.
enum TransformerBenchmarks {
    /// One transformer, and the C baseline doing its work on pixels in memory.
    struct Case {
        let name: String
        let transformer: any ImageTransformer
        /// True where our resampler does the work (target: at most 1x).
        var isOurResampler = false
        let baseline: (UnsafeRawPointer, Int, Int, Int) -> Int
        /// Another way to the same result, printed for reference.
        var other: (label: String, run: (UnsafeRawPointer, Int, Int, Int) -> Int)?
    }

    static func cases(width: Int, height: Int) -> [Case] {
        let resized = (width: width / 2, height: height / 2)
        return [
            Case(name: "resize to \(resized.width)x\(resized.height)",
                 transformer: ResizingTransformer(size: CGSize(width: resized.width, height: resized.height), scaleMode: .fill),
                 isOurResampler: true) { bb_transform_resize($0, Int32($1), Int32($2), Int32($3), Int32(resized.width), Int32(resized.height)) },
            Case(name: "crop 200x150", transformer: CroppingTransformer(rect: CGRect(x: 30, y: 40, width: 200, height: 150))) {
                bb_transform_crop($0, Int32($1), Int32($2), Int32($3), 30, 40, 200, 150)
            },
            Case(name: "round corners 20", transformer: RoundCornerTransformer(radius: 20),
                 baseline: { bb_transform_round($0, Int32($1), Int32($2), Int32($3), 20) },
                 other: ("librsvg mask + composite2", { bb_transform_round_svg($0, Int32($1), Int32($2), Int32($3), 20) })),
            Case(name: "flip horizontal", transformer: FlippingTransformer(horizontal: true, vertical: false)) { bb_transform_flip($0, Int32($1), Int32($2), Int32($3)) },
            Case(name: "rotate 30 degrees", transformer: RotationTransformer(angle: .pi / 6, fitSize: true)) { bb_transform_rotate($0, Int32($1), Int32($2), Int32($3), -30) },
            Case(name: "tint red (source-in)", transformer: TintTransformer(color: RGBA8(red: 255, green: 0, blue: 0))) { pixels, width, height, bands in
                [255.0, 0, 0, 255].withUnsafeBufferPointer { bb_transform_tint(pixels, Int32(width), Int32(height), Int32(bands), $0.baseAddress) }
            },
            Case(name: "blur 3", transformer: BlurTransformer(radius: 3)) { bb_transform_blur($0, Int32($1), Int32($2), Int32($3), 3) },
            Case(name: "filter invert", transformer: FilterTransformer(operation: "invert")) { bb_transform_invert($0, Int32($1), Int32($2), Int32($3)) },
        ]
    }

    static func run() throws {
        let testdata = try CoderBenchmarks.testdataDirectory()
        print("\n== Transformers: ours (decoded image in, decoded image out) against libvips from C on the same pixels ==")
        print("load average at start: \(CoderBenchmarks.loadAverage())")
        var worst: [(String, Double, Double)] = []
        for path in ["photos/rocket.jpg", "sdwebimage/TestImage.png"] {
            let data = try Data(contentsOf: testdata.appendingPathComponent(path))
            let image = try ImageCodersManager.shared.decode(data, options: ImageCoderOptions())
            // The baseline gets the pixels as libvips would hold them: RGB for an opaque image.
            let bands = image.hasAlpha ? 4 : 3
            let pixels: [UInt8] = try image.withUnsafeRGBA8Bytes { rgba in
                bands == 4 ? Array(rgba) : stride(from: 0, to: rgba.count, by: 4).flatMap { [rgba[$0], rgba[$0 + 1], rgba[$0 + 2]] }
            }
            print("\n-- \(path) \(image.pixelWidth)x\(image.pixelHeight), \(bands) bands --")
            for item in cases(width: image.pixelWidth, height: image.pixelHeight) {
                let failure = CoderBenchmarks.Failure(description: "\(path) \(item.name) failed")
                let ours = { if item.transformer.transformedImage(with: image, forKey: "")?.isDecoded != true { throw failure } }
                let measured = try pixels.withUnsafeBytes { raw in
                    let (width, height) = (image.pixelWidth, image.pixelHeight)
                    let direct = try PairedRatio(rounds: 31, ours: ours) {
                        if item.baseline(raw.baseAddress!, width, height, bands) < 0 { throw failure }
                    }
                    let other = try item.other.map { other in
                        (other.label, try PairedRatio(rounds: 31, ours: ours) {
                            if other.run(raw.baseAddress!, width, height, bands) < 0 { throw failure }
                        })
                    }
                    return (direct, other)
                }
                measured.0.printed("\(path) \(item.name)", baselineLabel: "libvips C")
                if let (label, other) = measured.1 { other.printed("  (for reference)", baselineLabel: label) }
                let ratio = measured.0.ratio
                worst.append(("\(path) \(item.name)", ratio, item.isOurResampler ? 1 : 1.2))
            }
        }
        try chain(testdata)
        try playerMemory()
        print("\ntargets: each transformer at most 1.2x libvips from C (1x where our resampler resizes)")
        for (name, ratio, target) in worst where ratio > target {
            print("  not met: \(name) \(String(format: "%.2f", ratio))x (target \(target)x)")
        }
        if worst.allSatisfy({ $0.1 <= $0.2 }) { print("  met by every transformer") }
        print("load average at end: \(CoderBenchmarks.loadAverage())")
    }

    /// Resize, round corners and blur on a lazily decoded image: one libvips pipeline, against
    /// the same three steps with the pixels rendered after each. The resize alone, the same
    /// work both ways, shows how far apart two equal times measure here.
    static func chain(_ testdata: URL) throws {
        print("\n-- chain of resize to half (fill), round corners 20, blur 2, from the encoded bytes --")
        for path in ["photos/rocket.jpg", "photos/hubble_deep_field.jpg", "photos/retina.jpg"] {
            for resizeFirst in [true, false, nil] {
                let bodies = try chainBodies(testdata.appendingPathComponent(path), resizeFirst: resizeFirst)
                let measured = try PairedRatio(rounds: 41, ours: bodies.fused, baseline: bodies.stepwise)
                let order = resizeFirst.map { $0 ? "resize first" : "resize last" } ?? "resize only (equal work)"
                measured.printed("\(path) \(order), one pipeline", baselineLabel: "bitmap between steps")
            }
        }
    }

    /// The chain on `file` (resize first, last, or alone when nil) as one pipeline, and step
    /// by step with the pixels rendered after each.
    static func chainBodies(_ file: URL, resizeFirst: Bool?) throws -> (fused: () throws -> Void, stepwise: () throws -> Void) {
        let data = try Data(contentsOf: file)
        var lazy = ImageCoderOptions()
        lazy.decodeUseLazyDecoding = true
        let header = try ImageHeader(probing: data)
        let resize = ResizingTransformer(size: CGSize(width: header.pixelWidth / 2, height: header.pixelHeight / 2), scaleMode: .fill)
        let others: [any ImageTransformer] = [RoundCornerTransformer(radius: 20), BlurTransformer(radius: 2)]
        let steps: [any ImageTransformer] = resizeFirst.map { $0 ? [resize] + others : others + [resize] } ?? [resize]
        let pipeline = PipelineTransformer(transformers: steps)
        let failure = CoderBenchmarks.Failure(description: "\(file.lastPathComponent) chain failed")
        return (fused: {
            let source = try VipsImageCoder.shared.decode(data, options: lazy)
            guard try pipeline.transformedImage(with: source, forKey: "")?.decoded() != nil else { throw failure }
        }, stepwise: {
            var image = try VipsImageCoder.shared.decode(data, options: lazy)
            for step in steps {
                guard let next = step.transformedImage(with: image, forKey: "") else { throw failure }
                image = try next.decoded()
            }
        })
    }

    /// `webimage-benchmark repeat-chain fused|stepwise IMAGE COUNT`: the resize-first chain
    /// COUNT times, to profile one form (under `perf record`).
    static func repeatChain(fused: Bool, path: String, count: Int) throws {
        let bodies = try chainBodies(CoderBenchmarks.testdataDirectory().appendingPathComponent(path), resizeFirst: true)
        let body = fused ? bodies.fused : bodies.stepwise
        let start = ContinuousClock.now
        for _ in 0..<count { try body() }
        print("\(path): \(count) chains \(fused ? "as one pipeline" : "step by step") in \(ContinuousClock.now - start)")
    }

    /// Resident memory added while a player plays a 300-frame 400x400 APNG in real time with a
    /// 20 MB buffer (a frame is 640 KB decoded: all of them would be 192 MB).
    static func playerMemory() throws {
        print("\n-- player: 300 frames of 400x400, 20 ms each, maxBufferSize 20 MB, 60 ticks a second --")
        let testdata = try CoderBenchmarks.testdataDirectory()
        let base = try ImageCodersManager.shared.decode(Data(contentsOf: testdata.appendingPathComponent("sdwebimage/TestImage.png")), options: ImageCoderOptions())
        guard let square = ResizingTransformer(size: CGSize(width: 400, height: 400), scaleMode: .fill).transformedImage(with: base, forKey: "") else {
            throw CoderBenchmarks.Failure(description: "cannot make the frames")
        }
        var frames: [ImageFrame] = []
        for index in 0..<300 {
            guard let frame = RotationTransformer(angle: Double(index) * .pi / 150, fitSize: false).transformedImage(with: square, forKey: "") else {
                throw CoderBenchmarks.Failure(description: "cannot make frame \(index)")
            }
            frames.append(ImageFrame(image: frame, duration: 0.02))
        }
        guard let apng = ImageCoderHelper.animatedImage(with: frames)?.encodedData(format: .png),
              let animated = AnimatedImage(data: apng)
        else { throw CoderBenchmarks.Failure(description: "cannot encode the animation") }
        frames.removeAll()
        let clock = ManualAnimationClock()
        guard let player = AnimatedImagePlayer(provider: animated, clock: clock) else { throw CoderBenchmarks.Failure(description: "no player") }
        player.maxBufferSize = 20 << 20
        let before = residentBytes()
        var peak = before
        var largestBuffer = 0
        player.startPlaying()
        let start = ContinuousClock.now
        var last = start
        // Two loops (12 s), ticked in real time so that decoding ahead races the clock.
        while player.currentLoopCount < 2 {
            Thread.sleep(forTimeInterval: 1.0 / 60)
            let now = ContinuousClock.now
            clock.advance(by: (now - last).seconds)
            last = now
            peak = max(peak, residentBytes())
            largestBuffer = max(largestBuffer, player.bufferedFrameCount)
        }
        player.stopPlaying()
        let growth = Double(peak - before) / 1_048_576
        print(String(format: "resident memory growth while playing: %.1f MB (target under 40 MB: %@); buffer held at most %d frames; %d frames of %d shown late or skipped",
                     growth, growth < 40 ? "met" : "not met", largestBuffer, player.skippedFrameCount, 2 * 300))
    }

    /// This process's resident set, from /proc/self/statm.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let pages = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
