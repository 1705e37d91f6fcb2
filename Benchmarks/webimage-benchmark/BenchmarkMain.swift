import Foundation

/// `swift run -c release webimage-benchmark [coders|threads|cache|memory|transformers|budget|webp-animation|download|manager|hdr|info|all]`
/// (`threads`: only the 2-threads-against-1 part of `coders`; `memory`: only the memory-tier part of `cache`;
/// `chain`: only the transformer chain of `transformers`), or
/// `webimage-benchmark repeat IMAGE COUNT [THREADS [FORMAT|source]]` to run our thumbnail job on one
/// test image COUNT times on each of THREADS threads (under a profiler such as `perf record`), or
/// `webimage-benchmark repeat-decode IMAGE COUNT` to run our full decode (bytes to an `Image`) of one
/// test image COUNT times on one thread (for a profiler), or
/// `webimage-benchmark repeat-chain fused|stepwise IMAGE COUNT` to run the transformer chain, or
/// `webimage-benchmark job [IMAGE...]` to time the thumbnail job against Pillow's in alternating rounds, or
/// `webimage-benchmark floor [IMAGE...]` to time it and its steps against the same work by direct C calls, or
/// `webimage-benchmark faces [IMAGE...]` to time face detection against the 300x300 thumbnail it crops, or
/// `webimage-benchmark serve-bytes FILE PORT` to answer every GET with FILE's bytes from memory on
/// a bare Hummingbird route (the HTTP stack's own limit, for the image server's benchmark).
@main
enum BenchmarkMain {
    static func main() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let which = arguments.first ?? "all"
        if which == "repeat" {
            try CoderBenchmarks.repeatThumbnailJob(
                path: arguments.dropFirst().first ?? "photos/rocket.jpg",
                count: arguments.dropFirst(2).first.flatMap { Int($0) } ?? 1000,
                threads: arguments.dropFirst(3).first.flatMap { Int($0) } ?? 1,
                format: arguments.dropFirst(4).first ?? "jpeg"
            )
            return
        }
        if which == "repeat-decode" {
            try CoderBenchmarks.repeatFullDecode(
                path: arguments.dropFirst().first ?? "photos/rocket.jpg",
                count: arguments.dropFirst(2).first.flatMap { Int($0) } ?? 1000
            )
            return
        }
        if which == "job" {
            let paths = Array(arguments.dropFirst())
            try JobBenchmarks.run(paths: paths.isEmpty ? JobBenchmarks.defaultPaths : paths)
            return
        }
        if which == "floor" {
            let paths = Array(arguments.dropFirst())
            try FloorBenchmarks.run(paths: paths.isEmpty ? FloorBenchmarks.defaultPaths : paths)
            return
        }
        if which == "faces" {
            let paths = Array(arguments.dropFirst())
            try FaceBenchmarks.run(paths: paths.isEmpty ? FaceBenchmarks.defaultPaths : paths)
            return
        }
        if which == "serve-bytes" {
            guard arguments.count == 3, let port = Int(arguments[2]) else {
                throw CoderBenchmarks.Failure(description: "usage: webimage-benchmark serve-bytes FILE PORT")
            }
            try await BareRoute.serve(file: arguments[1], port: port)
            return
        }
        if which == "repeat-chain" {
            try TransformerBenchmarks.repeatChain(
                fused: arguments.dropFirst().first != "stepwise",
                path: arguments.dropFirst(2).first ?? "photos/rocket.jpg",
                count: arguments.dropFirst(3).first.flatMap { Int($0) } ?? 1000
            )
            return
        }
        print("swift-webimage benchmark: ratios are ours / baseline, measured in this process")
        if which == "coders" || which == "all" { try CoderBenchmarks.run() }
        if which == "threads" { try CoderBenchmarks.runThreads() }
        if which == "cache" || which == "all" { try CacheBenchmarks.run() }
        if which == "memory" { try CacheBenchmarks.runMemory() }
        if which == "transformers" || which == "all" { try TransformerBenchmarks.run() }
        if which == "chain" { try TransformerBenchmarks.chain(CoderBenchmarks.testdataDirectory()) }
        if which == "budget" || which == "all" { try BudgetBenchmarks.run() }
        if which == "webp-animation" || which == "all" { try WebPAnimationBenchmarks.run() }
        if which == "download" || which == "all" { try await DownloadBenchmarks.run() }
        if which == "manager" || which == "all" { try await ManagerBenchmarks.run() }
        if which == "hdr" || which == "all" { try HDRBenchmarks.run() }
        if which == "info" || which == "all" { try InfoBenchmarks.run() }
    }
}
