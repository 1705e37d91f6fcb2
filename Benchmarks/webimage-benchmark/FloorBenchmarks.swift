import CBenchmarkBaselines
import Foundation
import ImageEngine
import WebImage

/// `webimage-benchmark floor [IMAGE...]` (rocket.jpg and astronaut.png by default; part of
/// `coders` too): our thumbnail job (bytes in, 300x200 JPEG q80 bytes out) against its floor,
/// the same work done by direct C calls in this process (`CBenchmarkBaselines/floor.c`:
/// TurboJPEG's DCT-scaled decode or libpng's, CBitmapKernels' Lanczos-3 called directly,
/// tjCompress2; no colour management), and each step of both, so that the difference can be
/// placed. Beside it, issue 44's full-size work: our full decode of a JPEG against TurboJPEG's
/// (and, for a file with a colour profile, against TurboJPEG followed by the same conversion
/// called from C), and our full-size JPEG encode against tjCompress2 of the same pixels, each
/// split into the engine's part and the Swift layers'. Every step runs a sample's worth of
/// times (about 4 ms) in each of 21 rounds, the steps in turn and their order reversed every
/// other round, so that the machine's changing speed falls on all alike; medians of the
/// rounds, in the process's CPU time (the steadier figure on a shared machine) and in wall time.
enum FloorBenchmarks {
    static let defaultPaths = ["photos/rocket.jpg", "photos/astronaut.png"]

    static func run(paths: [String]) throws {
        try eachImage(
            titled: "The thumbnail job (\(CoderBenchmarks.boxWidth)x\(CoderBenchmarks.boxHeight) JPEG q\(CoderBenchmarks.quality)) against its C floor",
            paths: paths, compare(path:data:)
        )
    }

    /// Prints the title and the load average, runs `compare` on each test image (`paths` under
    /// the test images), and prints the load average again.
    static func eachImage(titled title: String, paths: [String], _ compare: (_ path: String, _ data: Data) throws -> Void) throws {
        let testdata = try CoderBenchmarks.testdataDirectory()
        print("\n== \(title) ==")
        print("load average at start: \(CoderBenchmarks.loadAverage())")
        for path in paths {
            try compare(path, Data(contentsOf: testdata.appendingPathComponent(path)))
        }
        print("load average at end: \(CoderBenchmarks.loadAverage())")
    }

    /// One step: its label, what it does once, and its medians (seconds a run) once measured.
    struct Step {
        let label: String
        let body: () throws -> Void
    }

    /// Median CPU and wall seconds a run of each step, over `rounds` interleaved rounds; and
    /// the median and quartiles of the per-round CPU ratio of step `ours` over step `floor`.
    struct Rounds {
        let cpu: [Double]
        let wall: [Double]
        let cpuRatios: [Double]

        init(_ steps: [Step], rounds: Int, ours: Int, floor: Int) throws {
            // Warm-up, and how many runs make a sample of about 4 ms.
            let repeats = try steps.map { step in
                try step.body()
                let start = CoderBenchmarks.processCPUTime()
                try step.body()
                let once = CoderBenchmarks.processCPUTime() - start
                return max(1, min(1000, Int((0.004 / max(once, 1e-7)).rounded(.up))))
            }
            var cpu = Array(repeating: [Double](), count: steps.count)
            var wall = Array(repeating: [Double](), count: steps.count)
            var ratios: [Double] = []
            for round in 0..<rounds {
                let order = round.isMultiple(of: 2) ? Array(steps.indices) : steps.indices.reversed()
                for index in order {
                    let sample = try JobBenchmarks.sample(steps[index].body, count: repeats[index])
                    cpu[index].append(sample.cpu)
                    wall[index].append(sample.wall)
                }
                ratios.append(cpu[ours][round] / max(cpu[floor][round], 1e-9))
            }
            self.cpu = cpu.map { JobBenchmarks.Quartiles($0).median }
            self.wall = wall.map { JobBenchmarks.Quartiles($0).median }
            cpuRatios = ratios
        }
    }

    static func compare(path: String, data: Data) throws {
        let manager = ImageCodersManager.shared
        let isPNG = ImageFormat(sniffing: data) == .png
        let png: Int32 = isPNG ? 1 : 0
        let quality = Int32(CoderBenchmarks.quality)
        let thumbnail = try manager.decode(data, options: CoderBenchmarks.thumbnailOptions(lazy: false))
        let width = Int32(thumbnail.pixelWidth)
        let height = Int32(thumbnail.pixelHeight)
        let encoding = CoderBenchmarks.encodeOptions

        // The floor's decoded and resized bitmaps, for the steps after the decode.
        var decoded = bb_floor_bitmap()
        var resized = bb_floor_bitmap()
        defer {
            bb_floor_bitmap_free(&decoded)
            bb_floor_bitmap_free(&resized)
        }
        let decodedStatus = data.withUnsafeBytes { bb_floor_decode($0.baseAddress, $0.count, png, width, height, 4, &decoded) }
        guard decodedStatus == 0, bb_floor_resample(&decoded, width, height, &resized) == 0 else {
            throw CoderBenchmarks.Failure(description: "\(path): the C floor cannot decode or resize it")
        }
        let floorBytes = data.withUnsafeBytes { bb_floor_thumbnail_job($0.baseAddress, $0.count, png, width, height, quality) }
        let oursBytes = try CoderBenchmarks.oursThumbnailJob(data).count
        print("\n-- \(path): \(thumbnail.pixelWidth)x\(thumbnail.pixelHeight) from \(decoded.width)x\(decoded.height) decoded; ours \(oursBytes) bytes, the floor \(floorBytes) --")

        func c(_ what: String, _ body: () -> Int) throws {
            if body() < 0 { throw CoderBenchmarks.Failure(description: "\(path): the C floor's \(what) failed") }
        }
        // A step making a bitmap (0 or -1), freed after.
        func bitmapStep(_ label: String, _ make: @escaping (inout bb_floor_bitmap) -> Int32) -> Step {
            Step(label: label) {
                var bitmap = bb_floor_bitmap()
                defer { bb_floor_bitmap_free(&bitmap) }
                try c(label) { Int(make(&bitmap)) }
            }
        }
        var steps: [Step] = [
            Step(label: "ours: the whole job") { _ = try CoderBenchmarks.oursThumbnailJob(data) },
            Step(label: "C floor: the whole job") {
                try c("job") { data.withUnsafeBytes { bb_floor_thumbnail_job($0.baseAddress, $0.count, png, width, height, quality) } }
            },
            Step(label: "ours: thumbnail decode (bytes to an Image)") {
                _ = try manager.decode(data, options: CoderBenchmarks.thumbnailOptions(lazy: false))
            },
            Step(label: "ours: encode of that Image") { _ = try manager.encode(thumbnail, format: .jpeg, options: encoding) },
            bitmapStep("C floor: decode to RGBA (\(isPNG ? "libpng" : "TurboJPEG, DCT-scaled"))") { bitmap in
                data.withUnsafeBytes { bb_floor_decode($0.baseAddress, $0.count, png, width, height, 4, &bitmap) }
            },
            bitmapStep("C floor: Lanczos-3 (CBitmapKernels' wi_resample_rgba8)") { bb_floor_resample(&decoded, width, height, &$0) },
            Step(label: "C floor: encode (tjCompress2 from RGBA)") { try c("encode") { bb_floor_encode(&resized, quality) } },
            bitmapStep("C reference: the floor's decode to RGB instead of RGBA") { bitmap in
                data.withUnsafeBytes { bb_floor_decode($0.baseAddress, $0.count, png, width, height, 3, &bitmap) }
            },
            bitmapStep("C reference: a plain scalar Lanczos-3 (Pillow's scheme)") { bb_plain_lanczos3(&decoded, width, height, &$0) },
        ]
        // The engine's calls under our JPEG coder, without its Swift layers (header and
        // metadata reading, plans, the Image): what our decode and encode cost in C.
        var engine: (withProfile: Int, without: Int, encode: Int)?
        if !isPNG, let header = TurboJPEG.header(of: data) {
            let profile = try VipsImageRef.load("jpegload_buffer", data: data).iccProfile
            let size = (width: thumbnail.pixelWidth, height: thumbnail.pixelHeight)
            let shrink = TurboJPEG.shrink(header, covering: size)
            let pixels = try TurboJPEG.thumbnail(data, header: header, shrink: shrink, size: size, colourProfile: profile, orientation: 1)
            engine = (steps.count, steps.count + 1, steps.count + 2)
            steps += [
                Step(label: "ours, engine: TurboJPEG.thumbnail with the colour conversion") {
                    _ = try TurboJPEG.thumbnail(data, header: header, shrink: shrink, size: size, colourProfile: profile, orientation: 1)
                },
                Step(label: "ours, engine: TurboJPEG.thumbnail without it") {
                    _ = try TurboJPEG.thumbnail(data, header: header, shrink: shrink, size: size, colourProfile: nil, orientation: 1)
                },
                Step(label: "ours, engine: TurboJPEG.encode of its pixels") {
                    _ = try TurboJPEG.encode(pixels, quality: Int(quality))
                },
            ]
        }
        // The full decode beside it (issue 44's item 2): ours to an Image against TurboJPEG's
        // to RGBA (`bb_tj_decode_rgba`: no colour management, a fresh buffer each time) and,
        // when the file has a profile to convert from, against TurboJPEG followed by the same
        // conversion called from C (the same work); our engine's decode with and without it.
        let fullDecode = steps.count
        var fullDecodeParts: (converting: Int?, engine: Int, engineConverting: Int?)?
        if !isPNG, let header = TurboJPEG.header(of: data) {
            steps += [
                Step(label: "ours: full decode (bytes to an Image)") { _ = try manager.decode(data, options: ImageCoderOptions()) },
                Step(label: "C: TurboJPEG full decode to RGBA") {
                    try c("full decode") { data.withUnsafeBytes { bb_tj_decode_rgba($0.baseAddress, $0.count) } }
                },
                Step(label: "ours, engine: TurboJPEG.decode, no colour conversion") {
                    _ = try TurboJPEG.decode(data, header: header, colourProfile: nil, orientation: 1)
                },
            ]
            fullDecodeParts = (nil, steps.count - 1, nil)
            if let profile = try CoderBenchmarks.convertedProfile(of: data) {
                fullDecodeParts = (steps.count, steps.count - 1, steps.count + 1)
                steps += [
                    Step(label: "C: TurboJPEG full decode to RGBA + the same conversion") {
                        try c("full decode + conversion") {
                            data.withUnsafeBytes { jpeg in
                                profile.withUnsafeBytes { bb_tj_decode_rgba_to_srgb(jpeg.baseAddress, jpeg.count, $0.baseAddress, $0.count) }
                            }
                        }
                    },
                    Step(label: "ours, engine: TurboJPEG.decode with the colour conversion") {
                        _ = try TurboJPEG.decode(data, header: header, colourProfile: profile, orientation: 1)
                    },
                ]
            }
        }
        // The full-size JPEG encode (issue 44's item 3): ours of the decoded Image against
        // tjCompress2 of the same RGBA pixels, and our engine's call alone.
        let fullImage = try manager.decode(data, options: ImageCoderOptions())
        let fullPixels = try fullImage.withUnsafeRGBA8Bytes { Array($0) }
        let fullWidth = Int32(fullImage.pixelWidth), fullHeight = Int32(fullImage.pixelHeight)
        let fullEncode = steps.count
        if !fullImage.hasAlpha {
            let pixelBuffer = fullPixels.withUnsafeBytes {
                PixelBuffer(copying: $0, width: fullImage.pixelWidth, height: fullImage.pixelHeight, bands: 4)
            }
            steps += [
                Step(label: "ours: full-size encode of the decoded Image") {
                    _ = try manager.encode(fullImage, format: .jpeg, options: encoding)
                },
                Step(label: "C: tjCompress2 of the same RGBA pixels") {
                    try c("full-size encode") { bb_tj_encode_jpeg(fullPixels, fullWidth, fullHeight, quality) }
                },
                Step(label: "ours, engine: TurboJPEG.encode of those pixels") {
                    _ = try TurboJPEG.encode(pixelBuffer, quality: Int(quality))
                },
            ]
        }
        let rounds = try Rounds(steps, rounds: 21, ours: 0, floor: 1)
        for (index, step) in steps.enumerated() {
            print("  \(step.label.padding(toLength: 66, withPad: " ", startingAt: 0)) CPU \(Comparison.format(rounds.cpu[index])), wall \(Comparison.format(rounds.wall[index]))")
        }
        let ratio = JobBenchmarks.Quartiles(rounds.cpuRatios)
        print(String(format: "  ours over the C floor, the whole job: %.2fx the CPU time (quartiles of the rounds %.2f – %.2f), %.2fx the wall time",
                     ratio.median, ratio.lower, ratio.upper, rounds.wall[0] / rounds.wall[1]))

        // Where the difference lies (CPU medians; parts measured apart need not add up exactly).
        // The indices are the steps' places in `steps`, in the order they are listed above.
        let cpu = rounds.cpu
        let gap = cpu[0] - cpu[1]
        // A part of a difference, as a share of the baseline's time (`base`: the floor's unless said).
        func part(_ label: String, _ seconds: Double, of base: (name: String, seconds: Double)? = nil) {
            let base = base ?? ("the floor", cpu[1])
            print("    \(label.padding(toLength: 64, withPad: " ", startingAt: 0)) \(seconds < 0 ? "-" : "")\(Comparison.format(abs(seconds)))"
                  + String(format: " (%.0f%% of %@)", seconds / base.seconds * 100, base.name))
        }
        print("  ours over the floor: \(gap < 0 ? "-" : "")\(Comparison.format(abs(gap))), of which")
        if let engine {
            part("decode + resample in C, ours against the floor's", cpu[engine.without] - cpu[4] - cpu[5])
            part("the colour conversion (from the embedded profile)", cpu[engine.withProfile] - cpu[engine.without])
            part("the Swift layers of our decode (header, metadata, plan, Image)", cpu[2] - cpu[engine.withProfile])
            part("TurboJPEG.encode against the floor's tjCompress2", cpu[engine.encode] - cpu[6])
            part("the Swift layers of our encode (checks, bitmap, Data)", cpu[3] - cpu[engine.encode])
        } else {
            part("our decode + resample against the floor's", cpu[2] - cpu[4] - cpu[5])
            part("our encode against the floor's", cpu[3] - cpu[6])
        }
        part("the rest (the job against its decode and encode apart)", cpu[0] - cpu[2] - cpu[3])
        if !isPNG {
            print(String(format: "  the floor's decode to RGB takes %.2fx its decode to RGBA's CPU time", cpu[7] / cpu[4]))
        }
        print(String(format: "  CBitmapKernels' Lanczos-3 takes %.2fx the plain scalar one's CPU time", cpu[5] / cpu[8]))
        if let parts = fullDecodeParts {
            print(String(format: "  our full decode takes %.2fx TurboJPEG's CPU time", cpu[fullDecode] / cpu[fullDecode + 1]))
            if let converting = parts.converting, let engineConverting = parts.engineConverting {
                print(String(format: "  our full decode takes %.2fx the CPU time of TurboJPEG + the same conversion in C, of which",
                             cpu[fullDecode] / cpu[converting]))
                let base = ("TurboJPEG's", cpu[fullDecode + 1])
                part("the conversion (C, on TurboJPEG's pixels)", cpu[converting] - cpu[fullDecode + 1], of: base)
                part("our engine's decode against the C one (buffer, conversion call)", cpu[engineConverting] - cpu[converting], of: base)
                part("the Swift layers of our decode (header, metadata, plan, Image)", cpu[fullDecode] - cpu[engineConverting], of: base)
            } else {
                let base = ("TurboJPEG's", cpu[fullDecode + 1])
                part("our engine's decode against TurboJPEG's (buffer)", cpu[parts.engine] - cpu[fullDecode + 1], of: base)
                part("the Swift layers of our decode (header, metadata, plan, Image)", cpu[fullDecode] - cpu[parts.engine], of: base)
            }
        }
        if fullEncode < steps.count {
            print(String(format: "  our full-size encode takes %.2fx tjCompress2's CPU time, of which", cpu[fullEncode] / cpu[fullEncode + 1]))
            let base = ("tjCompress2's", cpu[fullEncode + 1])
            part("TurboJPEG.encode against tjCompress2", cpu[fullEncode + 2] - cpu[fullEncode + 1], of: base)
            part("the Swift layers of our encode (checks, bitmap, Data)", cpu[fullEncode] - cpu[fullEncode + 2], of: base)
        }
    }
}
