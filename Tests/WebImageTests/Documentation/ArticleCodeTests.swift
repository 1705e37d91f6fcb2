import Foundation
import Testing

extension Documentation {
    /// The catalog's articles quote code that runs here: every `swift` code block of an article
    /// must appear, line for line (indentation aside), in a file of this folder. A block whose
    /// first line is `// Package.swift` quotes a manifest, which no test can compile, and is left out.
    @Suite("Article code") struct ArticleCodeTests {
        static let catalog = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/WebImage/WebImage.docc")

        /// The `swift` blocks of a Markdown text, each as its lines.
        static func swiftBlocks(in text: String) -> [[String]] {
            var blocks: [[String]] = []
            var current: [String]?
            for line in text.components(separatedBy: "\n") {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if current == nil, trimmed == "```swift" {
                    current = []
                } else if current != nil, trimmed == "```" {
                    blocks.append(current ?? [])
                    current = nil
                } else {
                    current?.append(line)
                }
            }
            return blocks
        }

        /// True when `lines` appear one after another in `source`, each after the same indentation.
        static func quotes(_ source: [String], _ lines: [String]) -> Bool {
            guard let first = lines.first(where: { !$0.isEmpty }) else { return true }
            for (index, line) in source.enumerated() where line.hasSuffix(first) {
                let indent = String(line.dropLast(first.count))
                guard indent.allSatisfy({ $0 == " " }), let start = lines.firstIndex(of: first) else { continue }
                let base = index - start
                guard base >= 0, base + lines.count <= source.count else { continue }
                let matches = lines.indices.allSatisfy { offset in
                    let expected = lines[offset].isEmpty ? "" : indent + lines[offset]
                    return source[base + offset].trimmingCharacters(in: .whitespaces).isEmpty ? lines[offset].isEmpty : source[base + offset] == expected
                }
                if matches { return true }
            }
            return false
        }

        @Test func everyQuotedBlockIsTestedCode() throws {
            let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            let sources = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
                .map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8).components(separatedBy: "\n") }
            let articles = try FileManager.default.contentsOfDirectory(atPath: Self.catalog.path).filter { $0.hasSuffix(".md") }
            #expect(articles.count >= 7)
            var checked = 0
            for article in articles {
                let text = try String(contentsOf: Self.catalog.appendingPathComponent(article), encoding: .utf8)
                for block in Self.swiftBlocks(in: text) where block.first != "// Package.swift" {
                    checked += 1
                    #expect(sources.contains { Self.quotes($0, block) }, "\(article) quotes code no test runs:\n\(block.joined(separator: "\n"))")
                }
            }
            #expect(checked >= 10)
        }

        @Test func aChangedLineIsNotAQuote() {
            let source = ["    func f() {", "        let a = 1", "", "        let b = 2", "    }"]
            #expect(Self.quotes(source, ["let a = 1", "", "let b = 2"]))
            #expect(!Self.quotes(source, ["let a = 1", "", "let b = 3"]))
            #expect(!Self.quotes(source, ["let a = 1", "let b = 2"]))
            #expect(Self.swiftBlocks(in: "text\n```swift\nlet a = 1\n```\n```sh\nls\n```") == [["let a = 1"]])
        }
    }
}

/// The tests of the DocC catalog's articles and their code: `swift test --filter Documentation`.
@Suite enum Documentation {}
