import Foundation
import Testing
import WebImage
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// The option table: every processing option declared once, and the parser, `canonicalForm`
/// and the result key reading nothing else.
@Suite(.offThePool) struct OptionTableTests {
    static let table = OptionTable.imgproxy
    static let now = Date(timeIntervalSince1970: 2_000_000_000)

    /// `declaration`'s example applied to `options`, with security options allowed and a
    /// preset named as `preset`'s example.
    static func applyingExample(of declaration: OptionDeclaration, to options: ProcessingOptions = ProcessingOptions()) throws -> ProcessingOptions {
        try applying(declaration.name, declaration.example, to: options)
    }

    static func applying(_ name: String, _ arguments: String, to options: ProcessingOptions = ProcessingOptions()) throws -> ProcessingOptions {
        let applier = OptionApplier(presets: try Presets(parsing: ["thumbnail=rs:fill:100:100"]), allowSecurityOptions: true)
        let option = RawOption(name: name, arguments: arguments.split(separator: ":", omittingEmptySubsequences: false).map(String.init))
        var result = options
        try applier.apply(option, to: &result, now: now)
        return result
    }

    @Test func aNewDeclarationReachesTheParserTheCanonicalFormAndTheKey() throws {
        // A made-up option that blurs, declared as changing the result, in a copy of the table.
        let soften = OptionDeclaration.result(
            "soften", aliases: ["sft"], arguments: "sigma", example: "3", default: .arguments("0"),
            apply: { reader, options, _ throws(ImageServerError) in options.blur = try reader.amount(try reader.single()) },
            canonical: { $0.blur == 0 ? nil : [ProcessingOptions.number($0.blur)] }
        )
        let table = OptionTable(Self.table.declarations + [soften])
        let parser = try ImgproxyURLParser(configuration: ProcessingConfiguration(), verifier: nil, optionTable: table)

        // The parser reads it, by name and alias; the server's own table does not know it.
        #expect(try parser.options(parsing: "sft:3").blur == 3)
        #expect(try parser.options(parsing: "soften:3") == (try parser.options(parsing: "sft:3")))
        #expect(throws: ImageServerError.unknownOption("sft")) { try ImgproxyURLParser().options(parsing: "sft:3") }
        #expect(throws: ImageServerError.invalidOption("sft", reason: "x is not a number (sft takes sigma)")) {
            try parser.options(parsing: "sft:x")
        }

        // The canonical form writes it under its long name, after the table's own options.
        let canonical = table.canonicalForm(of: try parser.options(parsing: "sft:3"))
        #expect(canonical.hasSuffix("/soften:3"))
        #expect(table.canonicalForm(of: try parser.options(parsing: "")).contains("soften") == false)

        // So does the result key.
        func key(_ options: String) throws -> String {
            let path = "/_/" + (options.isEmpty ? "" : options + "/") + "plain/https://example.com/a.jpg"
            let request = try parser.parse(path: path)
            return ResultKey(request: request, format: OutputFormatPlan(options: request.options, accept: nil, configuration: parser.configuration)).text
        }
        #expect(try key("sft:3").contains("/soften:3"))
        #expect(try !key("").contains("soften"))

        // A handling option in the same copy reaches the parser and stays out of the key.
        let note = OptionDeclaration.handling(
            "note", arguments: "text", example: "hello", default: .arguments(""),
            apply: { reader, options, _ throws(ImageServerError) in options.filename = try reader.single() }
        )
        let handlingParser = try ImgproxyURLParser(
            configuration: ProcessingConfiguration(), verifier: nil, optionTable: OptionTable(Self.table.declarations + [note])
        )
        let noted = try handlingParser.parse(path: "/_/note:hello/plain/https://example.com/a.jpg")
        let plain = try handlingParser.parse(path: "/_/plain/https://example.com/a.jpg")
        #expect(noted.options.filename == "hello")
        #expect(noted.canonicalForm == plain.canonicalForm)
    }

    @Test(arguments: Self.table.declarations.map(\.name))
    func examplesChangeTheCanonicalFormExactlyWhenTheOptionChangesTheResult(name: String) throws {
        let declaration = try #require(Self.table.declaration(named: name))
        let defaults = ProcessingOptions()
        let applied = try Self.applyingExample(of: declaration)
        switch declaration.role {
        case .result, .shorthand:
            #expect(applied.canonicalForm != defaults.canonicalForm, "\(name):\(declaration.example)")
        case .handling:
            #expect(applied != defaults, "\(name):\(declaration.example) does nothing")
            #expect(applied.canonicalForm == defaults.canonicalForm, "\(name):\(declaration.example)")
        }
    }

    @Test(arguments: Self.table.declarations.map(\.name))
    func declaredDefaultsAreTheDefaults(name: String) throws {
        let declaration = try #require(Self.table.declaration(named: name))
        guard case .arguments(let arguments) = declaration.defaultValue else { return }
        #expect(try Self.applying(name, arguments) == ProcessingOptions(), "\(name):\(arguments)")
    }

    /// The canonical form, read back as the options part of a path, gives the same processing
    /// and the same form again (the `canonical` fuzz target holds this for any accepted path).
    /// The form did not hold it when the target was written: it wrote the configuration's
    /// quality as `quality:80` beside `format_quality:webp:79:...`, and read back, a URL's
    /// `quality:80` overrides every format's, so WebP was encoded at 80, not 79. Without a URL
    /// quality the form now writes each written format's quality.
    @Test func theCanonicalFormReadsBackAsTheSameProcessing() throws {
        // Security options allowed, as the fuzz target has them: every form holds `max_animation_frames`.
        var configuration = ProcessingConfiguration()
        configuration.allowSecurityOptions = true
        var quality = configuration
        quality.quality = 70
        for parser in [try ImgproxyURLParser(configuration: configuration), try ImgproxyURLParser(configuration: quality)] {
            for path in ["", "q:50", "fq:webp:70", "fq:webp:0:jpeg:95", "q:50/fq:webp:70", "rs:fill:300:200/g:sm/f:webp/pd:2/bg:fff/cb:1", "rs:fit:300:300/exar:1:so:0:10"] {
                let options = try parser.options(parsing: path)
                let again = try parser.options(parsing: options.canonicalForm)
                #expect(again.canonicalForm == options.canonicalForm, "\(path)")
                for format in VipsImageCoder.encodableFormats {
                    #expect(again.quality(for: format) == options.quality(for: format), "\(path): \(format)")
                }
            }
        }
        let defaults = try ImgproxyURLParser().options(parsing: "")
        #expect(defaults.canonicalForm.contains("/format_quality:avif:63:gif:80:heic:80:heif:80:jpeg:80:jxl:77:png:80:tiff:80:webp:79/"))
        #expect(try ImgproxyURLParser().options(parsing: "fq:webp:0").canonicalForm.contains(":webp:80/"))
        #expect(try ImgproxyURLParser().options(parsing: "q:50/fq:webp:70").canonicalForm.contains("/quality:50/strip_metadata"))
    }

    @Test func everyNameAndAliasIsDeclaredOnce() {
        let names = Self.table.declarations.flatMap(\.names)
        let repeated = Dictionary(grouping: names, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        #expect(repeated == [])
        #expect(names.allSatisfy { !$0.isEmpty && !$0.contains(":") && !$0.contains("/") })
    }

    @Test func securityOptionsAreTheLimitsAndMaxAnimationFrames() throws {
        let security = Self.table.declarations.filter(\.isSecurityOption).map(\.name)
        #expect(
            security == ["max_animation_frames", "max_src_resolution", "max_src_file_size", "max_animation_frame_resolution", "max_result_dimension"]
        )
        let applier = OptionApplier(presets: try Presets(parsing: []), allowSecurityOptions: false)
        var options = ProcessingOptions()
        for name in security {
            #expect(throws: ImageServerError.securityOptionNotAllowed(name)) {
                try applier.apply(RawOption(name: name, arguments: ["1"]), to: &options, now: Self.now)
            }
        }
    }

    /// A row of docs/server-options.md's processing options table, by name and by alias.
    struct DocumentedOption {
        let defaultValue: String
        let inResultKey: String
    }

    /// docs/server-options.md's processing options table: its rows' cells under every name the first cell quotes.
    static func documentedOptions() throws -> [String: DocumentedOption] {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/server-options.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let start = try #require(text.range(of: "\n## Processing options\n"))
        let section = text[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        var options: [String: DocumentedOption] = [:]
        for line in section[..<end].split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            try #require(cells.count == 7, "\(line)")
            let row = DocumentedOption(defaultValue: cells[3], inResultKey: cells[4])
            // Quoted names are every other piece between backquotes.
            for (index, piece) in cells[1].split(separator: "`", omittingEmptySubsequences: false).enumerated() where index % 2 == 1 {
                options[String(piece)] = row
            }
        }
        return options
    }

    @Test func theDocsTableNamesEveryOptionAndNoOther() throws {
        let documented = try Self.documentedOptions()
        let declared = Set(Self.table.declarations.flatMap(\.names))
        #expect(declared.subtracting(documented.keys).sorted() == [], "declared, not in docs/server-options.md")
        #expect(Set(documented.keys).subtracting(declared).sorted() == [], "in docs/server-options.md, not declared")
    }

    @Test(arguments: Self.table.declarations.map(\.name))
    func theDocsTableSaysWhatTheDeclarationSays(name: String) throws {
        let declaration = try #require(Self.table.declaration(named: name))
        let row = try #require(try Self.documentedOptions()[name])
        switch declaration.role {
        case .result: #expect(row.inResultKey == "yes" || row.inResultKey.hasPrefix("when "), "\(name): \(row.inResultKey)")
        case .handling: #expect(row.inResultKey == "no", "\(name): \(row.inResultKey)")
        case .shorthand: #expect(row.inResultKey == "its options", "\(name): \(row.inResultKey)")
        }
        if case .setting(let setting) = declaration.defaultValue {
            #expect(row.defaultValue.contains("`\(setting)`"), "\(name): \(row.defaultValue)")
        }
    }
}
