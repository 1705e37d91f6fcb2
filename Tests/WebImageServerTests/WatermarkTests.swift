import Foundation
import Logging
import Testing
import WebImage
import WebImageSupport
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// `watermark` (`wm`) with `WATERMARK_DATA` / `_PATH` / `_URL` and `WATERMARK_OPACITY` over
/// HTTP: the mark lands where the option says, on every frame, in the result key; a bad mark
/// stops the start naming its setting.
@Suite(.offThePool, .timeLimit(.minutes(TestAllowance.minutes(3)))) struct WatermarkTests {
    static let green = RGBA8(red: 0, green: 255, blue: 0)

    /// A 50x25 opaque green PNG: a mark whose pixels are known everywhere.
    static func markPNG() throws -> Data {
        let bytes = [UInt8]((0..<50 * 25).flatMap { _ in [green.red, green.green, green.blue, 255] })
        let mark = try #require(Image(rgba8Pixels: bytes, width: 50, height: 25))
        return try ImageCodersManager.shared.encode(mark, format: .png, options: ImageCoderOptions())
    }

    /// The unsigned path of rocket.jpg (640x427) on `origin` through `options`, as PNG (lossless:
    /// the pixels can be compared).
    static func path(_ origin: TestServer, _ options: String, image: String = SourceImages.rocket, format: String = "png") -> String {
        let source = origin.url("/images/" + image).absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return "/unsafe/\(options)/plain/\(source)@\(format)"
    }

    static func decoded(_ reply: ServerUnderTest.Reply) throws -> Image {
        try ImageCodersManager.shared.decode(reply.body, options: ImageCoderOptions())
    }

    /// The bounding box (x, y, width, height) of the pixels that differ between two images of a size.
    static func changedArea(_ image: Image, from original: Image) throws -> [Int] {
        var (minX, minY, maxX, maxY) = (Int.max, Int.max, -1, -1)
        for y in 0..<image.pixelHeight {
            for x in 0..<image.pixelWidth where image.pixel(x: x, y: y) != original.pixel(x: x, y: y) {
                (minX, minY, maxX, maxY) = (min(minX, x), min(minY, y), max(maxX, x), max(maxY, y))
            }
        }
        return maxX < 0 ? [] : [minX, minY, maxX - minX + 1, maxY - minY + 1]
    }

    /// A folder of its own holding the mark as mark.png.
    static func markFile() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("watermark-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("mark.png")
        try markPNG().write(to: file)
        return file
    }

    @Test func aHalfOpaqueMarkAtTheBottomRightFromAFileBlendsWithTheResult() async throws {
        let file = try Self.markFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try await withOrigin { origin in
            try await withRunningServer(.fetchingFromLoopback { $0.watermarkPath = file.path }) { server in
                let plain = try Self.decoded(try await server.get(Self.path(origin, "q:100")))
                let reply = try await server.get(Self.path(origin, "q:100/wm:0.5:soea:10:10:0.2"))
                #expect(reply.status == 200)
                let marked = try Self.decoded(reply)
                #expect(marked.pixelWidth == 640 && marked.pixelHeight == 427)
                // Fitted into a fifth of the result (128x85): 128x64, 10 pixels in from the
                // right and bottom edges.
                #expect(try Self.changedArea(marked, from: plain) == [502, 353, 128, 64])
                // Half the mark's green over the photo, sample by sample.
                var largest = 0
                for (x, y) in [(502, 353), (560, 380), (629, 416)] {
                    let (under, got) = (try #require(plain.pixel(x: x, y: y)), try #require(marked.pixel(x: x, y: y)))
                    for (mark, base, result) in [(0, under.red, got.red), (255, under.green, got.green), (0, under.blue, got.blue)] {
                        let expected = (Double(mark) * 0.5 + Double(base) * 0.5).rounded()
                        largest = max(largest, abs(Int(result) - Int(expected)))
                    }
                    #expect(got.alpha == 255)
                }
                #expect(largest <= 1)
            }
        }
    }

    @Test func dataAPathAndAURLGiveTheSameMarkTheURLFetchedOnce() async throws {
        let file = try Self.markFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let png = try Self.markPNG()
        try await withOrigin { origin in
            origin.route("/mark.png") { _ in .content(Array(png), type: "image/png") }
            let options = "wm:1:nowe:5:5"
            let fromPath = try await withRunningServer(.fetchingFromLoopback { $0.watermarkPath = file.path }) { server in
                try await server.get(Self.path(origin, options))
            }
            let fromData = try await withRunningServer(.fetchingFromLoopback { $0.watermarkData = png.base64EncodedString() }) { server in
                try await server.get(Self.path(origin, options))
            }
            try await withRunningServer(.fetchingFromLoopback { $0.watermarkURL = origin.url("/mark.png").absoluteString }) { server in
                // A request that draws no mark does not fetch it.
                _ = try await server.get(Self.path(origin, "q:90"))
                #expect(origin.requestCount("/mark.png") == 0)
                let fromURL = try await server.get(Self.path(origin, options))
                let another = try await server.get(Self.path(origin, "wm:1:ce"))
                #expect(fromURL.status == 200 && another.status == 200)
                #expect(fromURL.body == fromPath.body && fromData.body == fromPath.body)
                #expect(origin.requestCount("/mark.png") == 1)
            }
            let marked = try Self.decoded(fromPath)
            #expect(marked.pixel(x: 5, y: 5) == Self.green && marked.pixel(x: 54, y: 29) == Self.green)
            #expect(marked.pixel(x: 55, y: 30) != Self.green && marked.pixel(x: 4, y: 4) != Self.green)
        }
    }

    /// A mark from a URL is decoded (whole) on the blocking pool, not on the request's task:
    /// the blocking check, which sees the decode, reports nothing of it. The mark is of a size
    /// no other test's is, for telling its report apart.
    @Test func aMarkFromAURLIsDecodedOffTheCooperativePool() async throws {
        let width = 61 + Int.random(in: 0..<64)
        let bytes = [UInt8]((0..<width * 23).flatMap { _ in [Self.green.red, Self.green.green, Self.green.blue, 255] })
        let png = try ImageCodersManager.shared.encode(try #require(Image(rgba8Pixels: bytes, width: width, height: 23)), format: .png, options: ImageCoderOptions())
        let description = "a mark of \(png.count) bytes"
        let reports = Locked<[BlockingCheck.Report]>([])
        try await withOrigin { origin in
            origin.route("/mark.png") { _ in .content(Array(png), type: "image/png") }
            try await withRunningServer(.fetchingFromLoopback { $0.watermarkURL = origin.url("/mark.png").absoluteString }) { server in
                let reply = try await BlockingCheck.observing({ report in reports.withLock { $0.append(report) } }) {
                    try await server.get(Self.path(origin, "wm:1:nowe:5:5"))
                }
                #expect(reply.status == 200)
                #expect(try Self.decoded(reply).pixel(x: 5, y: 5) == Self.green)
                #expect(origin.requestCount("/mark.png") == 1)
            }
        }
        let mine = reports.withLock { $0 }.filter { $0.detail == description }
        #expect(mine.isEmpty, "\(mine)")
    }

    @Test func eachWatermarkGivesItsOwnEntityTagAndWithoutAMarkTheOptionDrawsNothing() async throws {
        let png = try Self.markPNG()
        try await withOrigin { origin in
            var tags: [String: String] = [:]
            try await withRunningServer(.fetchingFromLoopback { $0.watermarkData = png.base64EncodedString() }) { server in
                for options in ["q:90", "wm:0.5:soea:10:10:0.2", "wm:0.5:soea:10:10:0.3", "wm:0.6:soea:10:10:0.2", "wm:0.5:re:10:10:0.2", "wm:0.5:noea"] {
                    let reply = try await server.get(Self.path(origin, options))
                    #expect(reply.status == 200)
                    tags[options] = reply.header("etag")
                }
                // Gaps far wider than the result are one mark each way, not a huge bitmap.
                let wide = try await server.get(Self.path(origin, "wm:1:re:1000000000:1000000000"))
                #expect(wide.status == 200)
                // Spelt another way, the same processing: the same tag.
                let alias = try await server.get(Self.path(origin, "watermark:0.5:soea:10:10:0.2"))
                #expect(alias.header("etag") == tags["wm:0.5:soea:10:10:0.2"])
            }
            #expect(Set(tags.values).count == 6)
            // Another mark: the same URL has another tag.
            var otherMark = png
            otherMark.append(0)
            try await withRunningServer(.fetchingFromLoopback { $0.watermarkData = otherMark.base64EncodedString() }) { server in
                let reply = try await server.get(Self.path(origin, "wm:0.5:soea:10:10:0.2"))
                #expect(reply.status == 200 && reply.header("etag") != tags["wm:0.5:soea:10:10:0.2"])
                let unmarked = try await server.get(Self.path(origin, "q:90"))
                #expect(unmarked.header("etag") == tags["q:90"])
            }
            // No watermark configured: `wm` is read and draws nothing (as imgproxy).
            try await withRunningServer(.fetchingFromLoopback()) { server in
                let plain = try await server.get(Self.path(origin, "q:90"))
                let asked = try await server.get(Self.path(origin, "q:90/wm:1:ce"))
                #expect(asked.status == 200 && asked.body == plain.body)
                let bad = try await server.get(Self.path(origin, "wm:2:ce"))
                #expect(bad.status == 400)
            }
        }
    }

    @Test func watermarkOpacityMultipliesTheOptions() async throws {
        let png = try Self.markPNG()
        try await withOrigin { origin in
            let half = try await withRunningServer(.fetchingFromLoopback {
                ($0.watermarkData, $0.watermarkOpacity) = (png.base64EncodedString(), 0.5)
            }) { server in
                try await server.get(Self.path(origin, "wm:1:soea:10:10:0.2"))
            }
            let asked = try await withRunningServer(.fetchingFromLoopback { $0.watermarkData = png.base64EncodedString() }) { server in
                try await server.get(Self.path(origin, "wm:0.5:soea:10:10:0.2"))
            }
            #expect(half.status == 200 && half.body == asked.body)
            #expect(half.header("etag") != asked.header("etag"))
        }
    }

    @Test func everyFrameOfAnAnimationHasTheMark() async throws {
        let png = try Self.markPNG()
        try await withOrigin { origin in
            try await withRunningServer(.fetchingFromLoopback { $0.watermarkData = png.base64EncodedString() }) { server in
                let reply = try await server.get(Self.path(origin, "wm:1:nowe:0:0", image: SourceImages.loopGIF, format: "gif"))
                #expect(reply.status == 200)
                let animated = try Self.decoded(reply)
                #expect(animated.frameCount == 2 && animated.pixelWidth == 72 && animated.pixelHeight == 48)
                for index in 0..<animated.frameCount {
                    let frame = try #require(animated.frame(at: index))
                    // GIF's palette keeps a pure green.
                    #expect(frame.pixel(x: 0, y: 0) == Self.green && frame.pixel(x: 49, y: 24) == Self.green, "frame \(index)")
                    #expect(frame.pixel(x: 60, y: 40) != Self.green, "frame \(index)")
                }
            }
        }
    }

    @Test func imgproxysNamesAreReadAndABadMarkStopsTheStartNamingItsSetting() async throws {
        let read = try await ImageServerConfiguration.load(arguments: ["webimage"], environment: [
            "IMGPROXY_WATERMARK_PATH": "/some/mark.png", "IMGPROXY_WATERMARK_OPACITY": "0.25", "IMGPROXY_WATERMARK_URL": "https://example.com/m.png",
        ])
        #expect(read.watermarkPath == "/some/mark.png" && read.watermarkOpacity == 0.25 && read.watermarkURL == "https://example.com/m.png")
        do {
            _ = try await ImageServerConfiguration.load(arguments: ["webimage"], environment: ["IMGPROXY_WATERMARK_OPACITY": "0"])
            Issue.record("an opacity of 0 was taken")
        } catch let error as ImageServerConfigurationError {
            #expect(error.problems == ["WEBIMAGE_WATERMARK_OPACITY (--watermark-opacity): \"0\" is not a number above 0, up to 1"])
        }

        var missingFile = ImageServerConfiguration.underTest()
        missingFile.watermarkPath = "/nonexistent/mark.png"
        #expect(throws: ImageServerConfigurationError(problems: [
            "WEBIMAGE_WATERMARK_PATH (--watermark-path): /nonexistent/mark.png cannot be read",
        ])) { try ImageServer(configuration: missingFile) }
        var notAnImage = ImageServerConfiguration.underTest()
        notAnImage.watermarkData = Data("not an image".utf8).base64EncodedString()
        #expect(throws: ImageServerConfigurationError(problems: [
            "WEBIMAGE_WATERMARK_DATA (--watermark-data): not an image this server reads",
        ])) { try ImageServer(configuration: notAnImage) }

        // `run` (webimage serve) fetches a URL mark before it listens: one the origin does not
        // have stops it.
        try await withOrigin { origin in
            let configuration = ImageServerConfiguration.fetchingFromLoopback { configuration in
                configuration.watermarkURL = origin.url("/status/404").absoluteString
                configuration.bind = ServerAddress(host: "127.0.0.1", port: 0)
            }
            do {
                try await ImageServer.run(configuration: configuration, parser: try configuration.makeParser(), logger: Logger(label: "watermark-test")) { _ in
                    Issue.record("the server started with a mark it could not fetch")
                }
            } catch let error as ImageServerConfigurationError {
                #expect(error.problems.count == 1 && error.problems[0].hasPrefix("WEBIMAGE_WATERMARK_URL (--watermark-url): "), "\(error)")
            }
        }
    }
}
