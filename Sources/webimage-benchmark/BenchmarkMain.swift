import Foundation

/// `swift run -c release webimage-benchmark [coders|cache|all]`
@main
enum BenchmarkMain {
    static func main() throws {
        let which = CommandLine.arguments.dropFirst().first ?? "all"
        print("swift-webimage benchmark: ratios are ours / baseline, measured in this process")
        if which == "coders" || which == "all" { try CoderBenchmarks.run() }
        if which == "cache" || which == "all" { try CacheBenchmarks.run() }
    }
}
