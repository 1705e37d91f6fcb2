/// One processing option as written in a URL or a preset: `rs:fill:300:200` is `rs` with
/// `fill`, `300`, `200`.
struct RawOption: Sendable, Hashable {
    let name: String
    let arguments: [String]

    /// Splits path segments into the options that lead them and the segments after: the first
    /// segment without a `:` starts the source (imgproxy's rule).
    static func leading(_ segments: [String]) -> (options: [RawOption], rest: [String]) {
        var options: [RawOption] = []
        for (index, segment) in segments.enumerated() {
            let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count > 1 else { return (options, Array(segments[index...])) }
            options.append(RawOption(name: parts[0], arguments: Array(parts.dropFirst())))
        }
        return (options, [])
    }
}
