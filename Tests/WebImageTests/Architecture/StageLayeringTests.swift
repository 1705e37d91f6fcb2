import Foundation
import Testing
import WebImageTestSupport

/// The stages of `Sources/WebImage`, and the folders of `Sources/WebImageServerCore`, stand on each
/// other in one direction: a folder refers only to types of its own stage and the stages below
/// (docs/architecture.md, "Stages"; docs/server.md, "Where things are").
@Suite("Architecture: stage layering", .offThePool)
struct StageLayeringTests {
    /// Each folder's height: a folder may name types of folders at its height or below.
    static let heights: [String: Int] = [
        "Core": 0, "Support": 0,
        "Image": 1,
        "Coding": 2,
        "Analysis": 3, "Animation": 3, "Caching": 3, "Loading": 3, "Transforming": 3,
        "Manager": 4, "Info": 4,
        "View": 5,
    ]

    /// The one file that may look up, and at what: the per-load context carries a component of
    /// every stage (a cache, a loader, a coder, a transformer, the manager), as SDWebImage's
    /// context does; it holds them and calls none.
    static let carried: [String: Set<String>] = [
        "Core/WebImageContext.swift": [
            "ImageCacheProtocol", "ImageLoader", "ImageCoder", "ImageCoderOptions", "ImageTransformer",
            "AnimatedImageProvider", "DownloaderRequestModifierProtocol", "DownloaderResponseModifierProtocol",
            "DownloaderDecryptorProtocol", "CacheKeyFilterProtocol", "CacheSerializerProtocol", "WebImageManager",
        ],
    ]

    /// The image server's folders follow a request (docs/server.md, "Where things are"):
    /// settings and observability (the log handler, the counters, the request's spans) at the
    /// bottom, then reading the request, then its source and its processing side by side, then
    /// the result and the configured images (fallback, watermark), and HTTP on top.
    static let serverHeights: [String: Int] = [
        "Configuration": 0, "Observability": 0,
        "Request": 1, "Storage": 1,
        "Source": 2, "Processing": 2,
        "Result": 3, "AuxiliaryImages": 3,
        "HTTP": 4,
    ]

    /// Sources/NAME in the package.
    static func sources(_ name: String) -> URL {
        // Tests/WebImageTests/<folder>/this file -> the package root.
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/" + name)
    }

    @Test func noStageRefersToATypeOfAStageAbove() throws {
        let files = try Self.swiftFiles(under: Self.sources("WebImage"))
        let folders = Set(files.map(\.folder))
        #expect(folders.subtracting(Self.heights.keys).isEmpty, "folders without a height: \(folders.subtracting(Self.heights.keys).sorted())")

        // Where each type is declared (top level, visible beyond its file).
        var declaredIn: [String: Set<String>] = [:]
        for file in files {
            for name in Self.declaredTypes(in: file.text) { declaredIn[name, default: []].insert(file.folder) }
        }
        // The check sees declarations and references: the context's carried types are declared
        // above it, and it names each of them (an exception that is no longer used goes).
        #expect(declaredIn["WebImageManager"] == ["Manager"] && declaredIn["Image"] == ["Image"])
        for (path, names) in Self.carried {
            let file = try #require(files.first { $0.relativePath == path })
            let referenced = Set(Self.identifiers(in: file.text))
            for name in names.sorted() {
                #expect(referenced.contains(name), "\(path) no longer refers to \(name)")
                #expect(declaredIn[name].map { $0.allSatisfy { (Self.heights[$0] ?? 0) > 0 } } == true, "\(name) is not declared above \(path)")
            }
        }
        let arrowsUp = Self.arrowsUp(files, declaredIn: declaredIn, heights: Self.heights, carried: Self.carried)
        #expect(arrowsUp.isEmpty, "arrows running back up:\n\(arrowsUp.sorted().joined(separator: "\n"))")
    }

    @Test func noServerFolderRefersToATypeOfAFolderAbove() throws {
        let files = try Self.swiftFiles(under: Self.sources("WebImageServerCore"))
        let folders = Set(files.map(\.folder))
        #expect(folders == Set(Self.serverHeights.keys), "folders: \(folders.sorted()); with a height: \(Self.serverHeights.keys.sorted())")
        var declaredIn: [String: Set<String>] = [:]
        for file in files {
            for name in Self.declaredTypes(in: file.text) { declaredIn[name, default: []].insert(file.folder) }
        }
        // The check sees the server's types where they live.
        #expect(declaredIn["ImageServer"] == ["HTTP"] && declaredIn["ImageRequest"] == ["Request"] && declaredIn["ResultStore"] == ["Result"])
        let arrowsUp = Self.arrowsUp(files, declaredIn: declaredIn, heights: Self.serverHeights, carried: [:])
        #expect(arrowsUp.isEmpty, "arrows running back up:\n\(arrowsUp.sorted().joined(separator: "\n"))")
    }

    /// The server's core knows no web framework: no file of it imports one (the adapters,
    /// WebImageServer and WebImageVapor, do), and each adapter is a handful of files with no
    /// folders of their own. NIOHTTP1 only beside AsyncHTTPClient, whose requests are made of
    /// its types: a client's file, which hands swift-http-types on.
    @Test func theServersCoreImportsNoFramework() throws {
        let core = try Self.swiftFiles(under: Self.sources("WebImageServerCore"))
        #expect(core.count > 50)
        let frameworks = ["Hummingbird", "HummingbirdCore", "Vapor", "NIOHTTP1", "NIOHTTPTypes", "Prometheus"]
        for file in core {
            let imports = file.text.split(separator: "\n").filter { $0.hasPrefix("import ") }.map { String($0.dropFirst(7)) }
            let isClient = imports.contains("AsyncHTTPClient")
            #expect(imports.allSatisfy { !frameworks.contains($0) || (isClient && $0 == "NIOHTTP1") }, "\(file.relativePath) imports \(imports)")
        }
        for adapter in ["WebImageServer", "WebImageVapor"] {
            let files = try FileManager.default.contentsOfDirectory(atPath: Self.sources(adapter).path).filter { $0.hasSuffix(".swift") }
            #expect((1...8).contains(files.count), "\(adapter): \(files)")
        }
    }

    /// Each reference from a file to a type declared only in folders above its own.
    private static func arrowsUp(
        _ files: [SourceFile], declaredIn: [String: Set<String>], heights: [String: Int], carried: [String: Set<String>]
    ) -> [String] {
        var arrowsUp: [String] = []
        for file in files {
            guard let height = heights[file.folder] else { continue }
            for name in Set(identifiers(in: file.text)).subtracting(carried[file.relativePath] ?? []) {
                guard let homes = declaredIn[name], !homes.contains(where: { (heights[$0] ?? .max) <= height }) else { continue }
                arrowsUp.append("\(file.relativePath) refers to \(name) (\(homes.sorted().joined(separator: ", ")))")
            }
        }
        return arrowsUp
    }

    private struct SourceFile {
        let folder: String
        let relativePath: String
        let text: String
    }

    private static func swiftFiles(under root: URL) throws -> [SourceFile] {
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        var files: [SourceFile] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            let relative = String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
            guard let folder = relative.split(separator: "/").first, relative.contains("/") else { continue }
            files.append(SourceFile(folder: String(folder), relativePath: relative, text: stripped(try String(contentsOf: url, encoding: .utf8))))
        }
        return files
    }

    /// Types declared at the top level and not private to their file.
    private static func declaredTypes(in text: String) -> [String] {
        let pattern = #/^(?:(?:public|package|internal|final|open|indirect)\s+)*(?:struct|class|enum|protocol|actor|typealias)\s+([A-Za-z_][A-Za-z0-9_]*)/#
        return text.split(separator: "\n").compactMap { line in
            (try? pattern.prefixMatch(in: line)).map { String($0.output.1) }
        }
    }

    private static func identifiers(in text: String) -> [String] {
        text.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init)
    }

    /// The text without comments and string literals (their words name no type).
    private static func stripped(_ text: String) -> String {
        var out = ""
        var index = text.startIndex
        func rest(_ prefix: String) -> Bool { text[index...].hasPrefix(prefix) }
        while index < text.endIndex {
            if rest("//") {
                index = text[index...].firstIndex(of: "\n") ?? text.endIndex
            } else if rest("/*") {
                index = text[index...].range(of: "*/")?.upperBound ?? text.endIndex
            } else if rest("\"\"\"") {
                let after = text.index(index, offsetBy: 3)
                index = text[after...].range(of: "\"\"\"")?.upperBound ?? text.endIndex
            } else if text[index] == "\"" {
                index = text.index(after: index)
                while index < text.endIndex, text[index] != "\"", text[index] != "\n" {
                    if text[index] == "\\", text.index(after: index) < text.endIndex { index = text.index(after: index) }
                    index = text.index(after: index)
                }
                if index < text.endIndex { index = text.index(after: index) }
                out.append(" ")
            } else {
                out.append(text[index])
                index = text.index(after: index)
            }
        }
        return out
    }
}
