import Foundation

/// A server's `/metrics` page (Prometheus' text format) as a test reads it.
struct ScrapedMetrics: Sendable {
    let text: String

    /// The page of the metrics listener on 127.0.0.1 at `port`.
    static func scrape(port: Int) async throws -> ScrapedMetrics {
        ScrapedMetrics(text: String(decoding: try await ServerUnderTest.get("/metrics", port: port).body, as: UTF8.self))
    }

    /// The sum of `name`'s samples whose labels include every one of `labels`
    /// (`operation="put"`); 0 when there is none (a counter never incremented is not listed).
    func sum(_ name: String, _ labels: String...) -> Double {
        text.split(separator: "\n").filter { line in
            guard line.hasPrefix(name + " ") || line.hasPrefix(name + "{") else { return false }
            let labelText = line.prefix { $0 != " " }
            return labels.allSatisfy { labelText.contains($0) }
        }
        .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
        .reduce(0, +)
    }
}
