import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTestSupport

/// The path around the options: the signature segment, the source (plain or base64), the
/// extension, imgproxy's repairs, and the errors each part gives.
@Suite(.offThePool) struct SourcePathTests {
    static func parse(_ path: String, schemes: Set<String> = ["http", "https"]) throws -> ImageRequest {
        var configuration = ProcessingConfiguration()
        configuration.sourceSchemes = schemes
        return try ImgproxyURLParser(configuration: configuration).parse(path: path)
    }

    /// The error `path` is refused with.
    static func refusal(_ path: String, schemes: Set<String> = ["http", "https"]) throws -> ImageServerError? {
        var configuration = ProcessingConfiguration()
        configuration.sourceSchemes = schemes
        let parser = try ImgproxyURLParser(configuration: configuration)
        do throws(ImageServerError) {
            _ = try parser.parse(path: path)
            return nil
        } catch {
            return error
        }
    }

    @Test func base64SourcesMayBeSplitIntoChunks() throws {
        let url = "https://example.com/images/a b?c=1.jpg"
        let encoded = Base64URL.encode(Array(url.utf8))
        let whole = try Self.parse("/_/rs:fit:100:100/\(encoded).webp")
        #expect(whole.source == .remote(try #require(URL(string: url))))
        #expect(whole.options.format == .webP && whole.options.width == 100)
        let chunks = stride(from: 0, to: encoded.count, by: 7).map { start in
            String(encoded.dropFirst(start).prefix(7))
        }
        let split = try Self.parse("/_/rs:fit:100:100/" + chunks.joined(separator: "/") + ".webp")
        #expect(split == ImageRequest(signature: "_", path: split.path, options: whole.options, source: whole.source))
        // Padding is allowed; no extension leaves the format open.
        let padded = try Self.parse("/_/" + Base64URL.encode(Array("http://e.com/x".utf8)) + "==")
        #expect(padded.source.description == "http://e.com/x" && padded.options.format == nil)
    }

    @Test func plainSourcesArePercentUnescaped() throws {
        let request = try Self.parse("/sig/w:300/plain/https://example.com/a%20b%3Fq%3D1%40x.jpg@png")
        #expect(request.source == .remote(try #require(URL(string: "https://example.com/a b?q=1@x.jpg"))))
        #expect(request.options.format == .png)
        // `+` stays a plus (a path, not a form); UTF-8 escapes decode.
        #expect(try Self.parse("/_/plain/http://e.com/a+b%C3%A9.jpg").source == .remote(try #require(URL(string: "http://e.com/a+bé.jpg"))))
        // No options at all.
        #expect(try Self.parse("/_/plain/http://e.com/x.png").options == ProcessingOptions(configuration: ProcessingConfiguration()))
    }

    @Test func proxiesNormalisationsAreRepaired() throws {
        // `:` escaped by a CDN in the options, `//` squeezed to `/` in the scheme.
        let request = try Self.parse("/_/rs%3Afill%3A300%3A200/g%3Asm/plain/https:/example.com/a.jpg")
        #expect(request.options.resizingType == .fill && request.options.width == 300 && request.options.gravity == .smart)
        #expect(request.source.description == "https://example.com/a.jpg")
        #expect(request.path == "/rs:fill:300:200/g:sm/plain/https://example.com/a.jpg")
        #expect(try Self.parse("/_/plain/local:/photos/a.jpg", schemes: ["local"]).source.description == "local:///photos/a.jpg")
        // A URL that was not squeezed is left alone.
        #expect(try Self.parse("/_/plain/http://e.com/a:/b").source.description == "http://e.com/a:/b")
    }

    @Test func theQueryIsIgnored() throws {
        let request = try Self.parse("/_/w:10/plain/http://e.com/a.jpg?w=20&h=30")
        #expect(request.source.description == "http://e.com/a.jpg" && request.options.width == 10)
    }

    @Test func localSourcesAreKeptForTheServerToResolve() throws {
        let request = try Self.parse("/_/plain/local:///photos/rocket.jpg", schemes: ["http", "https", "local"])
        #expect(request.source == .local(path: "/photos/rocket.jpg"))
    }

    /// Paths refused, and the status each gives.
    static let refusals: [(String, ImageServerError)] = [
        ("/", .invalidPath("no options or source after the signature")),
        ("/onlysignature", .invalidPath("no options or source after the signature")),
        ("//plain/http://e.com/a.jpg", .invalidPath("an empty signature or path")),
        ("/_/w:100", .invalidSource("the source is missing")),
        ("/_/plain/http://e.com/a%ZZ.jpg", .invalidSource("a bad percent escape")),
        ("/_/plain/http://e.com/a@b@png", .invalidSource("more than one format is given")),
        ("/_/plain/@png", .invalidSource("the source URL is empty")),
        ("/_/aGVsbG8*", .invalidSource("not URL-safe base64 of a UTF-8 URL")),
        ("/_/aGVsbG8.png.jpg", .invalidSource("more than one format is given")),
        ("/_/plain/example.com/a.jpg", .invalidSource("the source URL has no scheme")),
        ("/_/plain/ftp://e.com/a.jpg", .unsupportedSourceScheme("ftp")),
        ("/_/plain/local:///a.jpg", .unsupportedSourceScheme("local")),
        ("/_/plain/http://e.com/a.jpg@bogus", .invalidOption("extension bogus", reason: "bogus is not an image format")),
    ]

    @Test(arguments: Self.refusals)
    func badPathsAreRefusedWithTheirStatus(path: String, expected: ImageServerError) throws {
        let error = try Self.refusal(path)
        #expect(error == expected)
        #expect(error?.status == (expected.status))
        #expect(error.map { $0.status == 404 || $0.status == 400 } == true)
        // Public messages never show the source.
        #expect(error?.publicMessage.contains("e.com") == false)
    }
}
