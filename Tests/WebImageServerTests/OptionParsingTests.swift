import Foundation
import Testing
import WebImage
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// imgproxy's processing options: every short form equal to its long form, argument rules,
/// presets, security options, and the canonical form.
@Suite(.offThePool) struct OptionParsingTests {
    /// `text`'s options, read with the default configuration unless `parser` is given.
    static func options(_ text: String, parser: ImgproxyURLParser? = nil) throws -> ProcessingOptions {
        try (parser ?? ImgproxyURLParser()).options(parsing: text)
    }

    /// The error `text` is refused with, failing the test when it is accepted.
    static func refusal(_ text: String, parser: ImgproxyURLParser? = nil) throws -> ImageServerError? {
        let parser = try parser ?? ImgproxyURLParser()
        do throws(ImageServerError) {
            _ = try parser.options(parsing: text)
            Issue.record("\(text) was accepted")
            return nil
        } catch {
            return error
        }
    }

    /// Forms from imgproxy's documentation, each beside one written out in long form.
    static let equivalents: [(String, String)] = [
        ("rs:fill:300:200", "resize:fill:300:200"),
        ("rs:fill:300:200", "rt:fill/w:300/h:200"),
        ("rs:fill:300:400:0", "resizing_type:fill/width:300/height:400/enlarge:0"),
        ("rs:fit:300:400:1:1", "rt:fit/s:300:400/el:1/ex:1"),
        ("rs:auto:300:400:t:t:so:10:20", "rt:auto/w:300/h:400/enlarge:true/extend:true:so:10:20"),
        ("s:300:400", "size:300:400"),
        ("s::400", "h:400"),
        ("s:300", "width:300"),
        ("rt:fill-down", "resizing_type:fill-down"),
        ("mw:100/mh:50", "min-width:100/min-height:50"),
        ("z:1.5", "zoom:1.5:1.5"),
        ("zoom:2:3", "z:2:3"),
        ("dpr:2", "dpr:2.0"),
        ("el:1", "enlarge:true"),
        ("ex:1:noea:5:5", "extend:1:noea:5:5"),
        ("g:sm", "gravity:sm"),
        ("g:obj:face", "gravity:obj:face"),
        ("c:100:200:obj:face", "crop:100:200:obj:face"),
        ("bd:10:face", "blur_detections:10.0:face"),
        ("dd:1:face", "draw_detections:true:face"),
        ("g:ce:5", "gravity:ce:5:0"),
        ("g:fp:0.5:0.25", "gravity:fp:0.5:0.25"),
        ("g:soea:10:0.1", "gravity:soea:10:0.1"),
        ("c:100:200", "crop:100:200"),
        ("c:0.5:0.5:nowe", "crop:0.5:0.5:nowe:0:0"),
        ("t:10:FF00FF:1:0", "trim:10:ff00ff:true:false"),
        ("pd:10", "padding:10:10:10:10"),
        ("pd:10:20", "padding:10:20:10:20"),
        ("pd:10:20:30", "padding:10:20:30:20"),
        ("ar:0", "auto_rotate:false"),
        ("rot:90", "rotate:90"),
        ("rot:-90", "rotate:270"),
        ("fl:1:0", "flip:t:f"),
        ("fl::1", "flip:0:1"),
        ("bg:255:0:0", "background:ff0000"),
        ("bg:f00", "background:FF0000"),
        ("bl:2", "blur:2"),
        ("sh:0.7", "sharpen:0.7"),
        ("pix:8", "pixelate:8"),
        ("q:75", "quality:75"),
        ("fq:webp:70:avif:50", "format_quality:webp:70/fq:avif:50"),
        ("mb:5000", "max_bytes:5000"),
        ("f:webp", "format:webp"),
        ("ext:jpg", "f:jpeg"),
        ("sm:0", "strip_metadata:false"),
        ("cb:v2", "cachebuster:v2"),
        ("fn:photo", "filename:photo"),
        ("fn:cGhvdG8:1", "filename:photo"),
        ("att:1", "return_attachment:1"),
        ("skp:jpg:png", "skip_processing:png:jpeg"),
        ("raw:1", "raw:true"),
        ("rc:12", "round_corners:12"),
    ]

    @Test(arguments: Self.equivalents)
    func shortFormsEqualLongForms(short: String, long: String) throws {
        let first = try Self.options(short), second = try Self.options(long)
        #expect(first == second)
        #expect(first.canonicalForm == second.canonicalForm)
        // And differ from the defaults: the option did something.
        #expect(first != ProcessingOptions(configuration: ProcessingConfiguration()))
    }

    @Test func optionsReadAsImgproxyReadsThem() throws {
        let options = try Self.options("rs:fill:300:200:1:1:so:10:0.25/g:fp:0.5:0.25/c:0.5:100:nowe/pd:1:2:3/bg:10:20:30/q:50")
        #expect(options.resizingType == .fill && options.width == 300 && options.height == 200 && options.enlarge)
        #expect(options.extend && options.extendGravity == .anchor(.south, x: .points(10), y: .fraction(0.25)))
        #expect(options.gravity == .focusPoint(x: 0.5, y: 0.25))
        #expect(options.crop == ProcessingOptions.Crop(width: 0.5, height: 100, gravity: .anchor(.northWest)))
        #expect(options.padding == ProcessingOptions.Padding(top: 1, right: 2, bottom: 3, left: 2))
        #expect(options.background == RGBA8(red: 10, green: 20, blue: 30))
        #expect(options.quality(for: .webP) == 50 && options.quality(for: .jpeg) == 50)
        // Later options win; an empty argument leaves a value as it was.
        let later = try Self.options("w:100/s::50/w:200/bg:fff/bg:")
        #expect(later.width == 200 && later.height == 50 && later.background == nil)
        // Quality: the URL's, else the format's, else the default.
        let defaults = try Self.options("fq:jpeg:90")
        #expect(defaults.quality(for: .jpeg) == 90 && defaults.quality(for: .webP) == 79 && defaults.quality(for: .avif) == 63)
        #expect(defaults.quality(for: .png) == 80)
    }

    /// Bad options, each refused with a 400 naming the option as written.
    static let refusals: [(String, String)] = [
        ("rs:crop:300:200", "rs"),
        ("resize:fill:-3", "resize"),
        ("w:abc", "w"),
        ("h:1.5", "h"),
        ("s:1:2:3:4:5:6:7:8", "s"),
        ("z:0", "z"),
        ("dpr:-1", "dpr"),
        ("el:maybe", "el"),
        ("g:up", "g"),
        ("g:fp:2:0", "g"),
        ("g:sm:1", "g"),
        ("g:obj", "g"),
        ("g:obj:cat", "g"),
        ("g:obj:face:dog", "g"),
        ("g:obj:face:face", "g"),
        ("ex:1:obj:face", "ex"),
        ("bd:10:cat", "bd"),
        ("bd:10", "bd"),
        ("blur_detections:-1:face", "blur_detections"),
        ("dd:1:face:face", "dd"),
        ("dd:maybe:face", "dd"),
        ("ex:1:sm", "ex"),
        ("c:-5", "c"),
        ("t:ten", "t"),
        ("t:10:red", "t"),
        ("pd:1:2:3:4:5", "pd"),
        ("rot:45", "rot"),
        ("bg:300:0:0", "bg"),
        ("bg:1:2", "bg"),
        ("bl:x", "bl"),
        ("pix:-2", "pix"),
        ("q:101", "q"),
        ("fq:webp", "fq"),
        ("fq:bogus:50", "fq"),
        ("f:bogus", "f"),
        ("mb:-1", "mb"),
        ("exp:soon", "exp"),
        ("fn:***:1", "fn"),
        ("pr:nothing", "pr"),
        ("rc:-1", "rc"),
    ]

    @Test(arguments: Self.refusals)
    func badOptionsAre400NamingTheOption(text: String, name: String) throws {
        let error = try #require(try Self.refusal(text))
        #expect(error.status == 400)
        guard case .invalidOption(let option, _) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(option == name)
        #expect(error.publicMessage.hasPrefix("Invalid \(name):"))
        // And says what the option takes.
        #expect(error.publicMessage.hasSuffix(" takes \(try #require(OptionTable.imgproxy.declaration(named: name)).arguments))"))
    }

    /// imgproxy Pro's `obj` gravity knows one class, `face`; another is refused by name.
    @Test func objectGravityKnowsFacesAndNamesAnyOtherClass() throws {
        #expect(try Self.options("g:obj:face").gravity == .faces)
        #expect(try Self.options("c:100:200:obj:face").crop?.gravity == .faces)
        let error = try #require(try Self.refusal("g:obj:cat"))
        #expect(error.status == 400 && error.publicMessage.contains("cat is not an object class"), "\(error.publicMessage)")
    }

    @Test func unknownOptionsAre400() throws {
        #expect(throws: ImageServerError.unknownOption("wat")) { try Self.options("wat:1") }
        #expect(ImageServerError.unknownOption("wat").status == 400)
        #expect(ImageServerError.unknownOption("wat").publicMessage.contains("wat"))
    }

    @Test func securityOptionsAre403UnlessAllowed() throws {
        for text in ["max_src_resolution:10", "msr:10", "msfs:1000", "maf:5", "mafr:1", "mrd:500"] {
            let error = try Self.refusal(text)
            #expect(error?.status == 403 && error?.publicMessage.contains(text.prefix { $0 != ":" }) == true)
        }
        var configuration = ProcessingConfiguration()
        configuration.allowSecurityOptions = true
        let parser = try ImgproxyURLParser(configuration: configuration)
        let options = try Self.options("msr:12.5/msfs:1000/maf:5/mafr:1/mrd:500", parser: parser)
        #expect(options.maxSourceResolution == 12_500_000 && options.maxSourceFileSize == 1000)
        #expect(options.maxAnimationFrames == 5 && options.maxAnimationFrameResolution == 1_000_000 && options.maxResultDimension == 500)
    }

    @Test func expiredURLsAre403() throws {
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        let parser = try ImgproxyURLParser()
        #expect(throws: ImageServerError.expired) { try parser.options(parsing: "exp:1999999999", now: now) }
        #expect(ImageServerError.expired.status == 403)
        #expect(try parser.options(parsing: "exp:2000000001", now: now).expires == 2_000_000_001)
        #expect(try parser.options(parsing: "exp:0", now: now).expires == nil)
    }

    /// A path read once is not read again (RecentRequests), yet an expiring one read before its
    /// time is refused after it, and a refused path stays refused.
    @Test func aPathReadBeforeItsExpiryIsRefusedAfterIt() throws {
        let parser = try ImgproxyURLParser()
        let path = "/unsafe/exp:2000000000/rs:fit:10:10/plain/http://example.com/a.jpg"
        let before = Date(timeIntervalSince1970: 1_999_999_999)
        #expect(try parser.parse(path: path, now: before).expires == Date(timeIntervalSince1970: 2_000_000_000))
        #expect(try parser.parse(path: path, now: before).options.width == 10)
        #expect(throws: ImageServerError.expired) { try parser.parse(path: path, now: Date(timeIntervalSince1970: 2_000_000_001)) }
        let refused = "/unsafe/rs:fit:-1:10/plain/http://example.com/a.jpg"
        for _ in 0..<2 { #expect(throws: ImageServerError.self) { try parser.parse(path: refused, now: before) } }
    }

    /// The recent paths stay within their count and bytes: past either, they start again, and
    /// every path still reads as itself.
    @Test func theRecentPathsAreBounded() throws {
        let recent = RecentRequests(maxCount: 3, maxPathBytes: 100)
        let parser = try ImgproxyURLParser()
        let now = Date()
        let paths = (0..<10).map { "/unsafe/rs:fit:\($0 + 1):10/plain/http://example.com/a.jpg" }
        for path in paths { recent.remember(try parser.parse(path: path, now: now), forPath: path) }
        let kept = paths.filter { recent.request(forPath: $0, now: now) != nil }
        #expect(!kept.isEmpty && kept.count <= 3 && kept.contains(paths[9]))
        #expect(kept.allSatisfy { recent.request(forPath: $0, now: now)?.options.width == (paths.firstIndex(of: $0) ?? -1) + 1 })
        let long = "/unsafe/" + String(repeating: "x", count: 200)
        recent.remember(try parser.parse(path: paths[0], now: now), forPath: long)
        #expect(paths.allSatisfy { recent.request(forPath: $0, now: now) == nil }, "a path past the byte bound kept the others")
    }

    @Test func presetsExpandAndDefaultAppliesToEveryRequest() throws {
        var configuration = ProcessingConfiguration()
        configuration.presets = ["default=q:70/sm:1", "thumb=rs:fill:100:100/g:sm", " # a comment", "", "webp=f:webp/pr:thumb", "loop=pr:loop/w:5"]
        let parser = try ImgproxyURLParser(configuration: configuration)
        let plain = try Self.options("w:10", parser: parser)
        #expect(plain.quality == 70 && plain.width == 10)
        let thumb = try Self.options("pr:thumb", parser: parser)
        #expect(thumb == (try Self.options("rs:fill:100:100/g:sm", parser: parser)))
        #expect(thumb == (try Self.options("rt:fill/s:100:100/g:sm/q:70")))
        #expect(thumb.canonicalForm == (try Self.options("g:sm/rt:fill/s:100:100/q:70/sm:1")).canonicalForm)
        // Nested presets expand; a preset met again inside itself is skipped.
        let nested = try Self.options("pr:webp", parser: parser)
        #expect(nested.format == .webP && nested.width == 100 && nested.gravity == .smart && nested.quality == 70)
        #expect(try Self.options("pr:loop", parser: parser).width == 5)
        // A bad preset stops the server from starting.
        configuration.presets = ["broken=w:wide"]
        #expect(throws: ImageServerConfigurationError.self) { try ImgproxyURLParser(configuration: configuration) }
        configuration.presets = ["noname"]
        #expect(throws: ImageServerConfigurationError.self) { try ImgproxyURLParser(configuration: configuration) }
    }

    @Test func onlyPresetsModeReadsPresetNamesOnly() throws {
        var configuration = ProcessingConfiguration()
        configuration.presets = ["small=rs:fit:100:100", "webp=f:webp"]
        configuration.onlyPresets = true
        let parser = try ImgproxyURLParser(configuration: configuration)
        let request = try parser.parse(path: "/_/small:webp/plain/https://example.com/a.jpg")
        #expect(request.options.width == 100 && request.options.format == .webP)
        #expect(request.source.description == "https://example.com/a.jpg")
        // Options are not presets there.
        #expect(throws: ImageServerError.self) { try parser.parse(path: "/_/rs:fit:100:100/plain/https://example.com/a.jpg") }
    }

    @Test func canonicalFormsAreEqualOnlyForEqualProcessing() throws {
        let forms = try ["rs:fill:300:200", "rs:fit:300:200", "rs:fill:300:201", "rs:fill:300:200/g:sm", "rs:fill:300:200/g:obj:face", "rs:fill:300:200/q:79", "rs:fill:300:200/cb:1", "rs:fill:300:200/ex:1", "rs:fill:300:200/exar:1", "rs:fill:300:200/exar:1:no"]
            .map { try Self.options($0).canonicalForm }
        #expect(Set(forms).count == forms.count)
        #expect(forms[0] == "resizing_type:fill/width:300/height:200/auto_rotate:1/format_quality:avif:63:gif:80:heic:80:heif:80:jpeg:80:jxl:77:png:80:tiff:80:webp:79/strip_metadata:1/preserve_hdr:0/keep_copyright:1/strip_color_profile:1/enforce_thumbnail:0/max_animation_frames:1000/max_result_dimension:0")
        // What does not change the bytes is not in it; the configuration's quality is.
        #expect(try Self.options("fn:x/att:1/exp:0").canonicalForm == (try Self.options("")).canonicalForm)
        var configuration = ProcessingConfiguration()
        configuration.quality = 90
        #expect(try Self.options("", parser: try ImgproxyURLParser(configuration: configuration)).canonicalForm != (try Self.options("")).canonicalForm)
    }
}

/// The options a URL starts from: the configuration's, set nowhere else.
@Suite(.offThePool) struct OptionDefaultsTests {
    @Test func defaultsComeFromTheConfiguration() throws {
        #expect(ProcessingOptions() == ProcessingOptions(configuration: ProcessingConfiguration()))
        var configuration = ProcessingConfiguration()
        configuration.quality = 90
        configuration.formatQuality = [.webP: 60]
        configuration.stripMetadata = false
        configuration.autoRotate = false
        configuration.preserveHDR = true
        configuration.maxSourceResolution = 1_000_000
        configuration.maxSourceFileSize = 2000
        configuration.maxAnimationFrames = 3
        configuration.maxAnimationFrameResolution = 4000
        configuration.maxResultDimension = 500
        let options = try ImgproxyURLParser(configuration: configuration).options(parsing: "")
        #expect(options.quality(for: .jpeg) == 90 && options.quality(for: .webP) == 60)
        #expect(!options.stripMetadata && !options.autoRotate && options.preserveHDR)
        #expect(options.maxSourceResolution == 1_000_000 && options.maxSourceFileSize == 2000 && options.maxAnimationFrames == 3)
        #expect(options.maxAnimationFrameResolution == 4000 && options.maxResultDimension == 500)
        // The result limit shrinks the result, and the frame limit cuts an animation: both are part of what is made.
        #expect(options.canonicalForm == "resizing_type:fit/width:0/height:0/auto_rotate:0/format_quality:avif:90:gif:90:heic:90:heif:90:jpeg:90:jxl:90:png:90:tiff:90:webp:60/strip_metadata:0/preserve_hdr:1/strip_color_profile:1/enforce_thumbnail:0/max_animation_frames:3/max_result_dimension:500")
    }
}

/// The configuration's text forms, as imgproxy's settings write them.
@Suite(.offThePool) struct ConfigurationTextTests {
    @Test func formatListsQualityTablesAndPresetsParse() throws {
        #expect(try ProcessingConfiguration.formats(parsing: "jpeg, png,gif") == [.jpeg, .png, .gif])
        #expect(try ProcessingConfiguration.formats(parsing: "webp,jpg") == [.webP, .jpeg])
        #expect(throws: ImageServerConfigurationError.self) { try ProcessingConfiguration.formats(parsing: "jpeg,bogus") }
        #expect(try ProcessingConfiguration.formatQuality(parsing: "webp=79, avif=63,jxl=77") == [.webP: 79, .avif: 63, .jxl: 77])
        #expect(throws: ImageServerConfigurationError.self) { try ProcessingConfiguration.formatQuality(parsing: "webp=0") }
        #expect(throws: ImageServerConfigurationError.self) { try ProcessingConfiguration.formatQuality(parsing: "webp:70") }
        let presets = ProcessingConfiguration.presets(parsing: "default=q:70,thumb=rs:fill:100:100/g:sm, ")
        #expect(presets == ["default=q:70", "thumb=rs:fill:100:100/g:sm"])
        var configuration = ProcessingConfiguration()
        configuration.presets = presets
        #expect(try ImgproxyURLParser(configuration: configuration).options(parsing: "pr:thumb").quality == 70)
    }
}
