import Foundation
import Testing
import WebImageTestSupport

extension Documentation {
    /// The catalogs' articles quote code that runs: every `swift` code block of an article must
    /// appear, line for line (indentation aside), in a file of its test folder. A block whose
    /// first line is `// Package.swift` quotes a manifest, which no test can compile, and is left out.
    @Suite("Article code", .offThePool) struct ArticleCodeTests {
        /// The repository's root folder.
        static let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

        /// A catalog, the folder of the tests that run its code, and the fewest articles and
        /// code blocks it has (so that a catalog moved away does not pass by checking nothing).
        struct Catalog: Sendable, CustomTestStringConvertible {
            let path: String
            let tests: String
            let articles: Int
            let blocks: Int
            var testDescription: String { path }
        }

        static let catalogs = [
            Catalog(path: "Sources/WebImage/WebImage.docc", tests: "Tests/WebImageTests/Documentation", articles: 7, blocks: 10),
            Catalog(path: "Sources/WebImageServer/WebImageServer.docc", tests: "Tests/WebImageServerTests/Documentation", articles: 2, blocks: 1),
            Catalog(path: "Sources/WebImageServerCore/WebImageServerCore.docc", tests: "Tests/WebImageServerTests/Documentation", articles: 1, blocks: 0),
        ]

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

        @Test(arguments: catalogs) func everyQuotedBlockIsTestedCode(_ catalog: Catalog) throws {
            let folder = Self.root.appendingPathComponent(catalog.tests)
            let sources = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
                .map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8).components(separatedBy: "\n") }
            let articlesFolder = Self.root.appendingPathComponent(catalog.path)
            let articles = try FileManager.default.contentsOfDirectory(atPath: articlesFolder.path).filter { $0.hasSuffix(".md") }
            #expect(articles.count >= catalog.articles)
            var checked = 0
            for article in articles {
                let text = try String(contentsOf: articlesFolder.appendingPathComponent(article), encoding: .utf8)
                for block in Self.swiftBlocks(in: text) where block.first != "// Package.swift" {
                    checked += 1
                    #expect(sources.contains { Self.quotes($0, block) }, "\(article) quotes code no test runs:\n\(block.joined(separator: "\n"))")
                }
            }
            #expect(checked >= catalog.blocks)
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
@Suite(.offThePool) enum Documentation {}
