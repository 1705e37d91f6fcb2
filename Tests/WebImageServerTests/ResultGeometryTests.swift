import Foundation
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// `max_result_dimension` and `extend_aspect_ratio` over HTTP, on imgproxy's own test vectors
/// (`processing/processing_test.go`: `TestResultSizeLimit`, `TestResizeTo*ExtendAR`), whose
/// source, `geometry.png`, is 200x100: here rocket.jpg stretched to that size.
@Suite(.offThePool) struct ResultGeometryTests {
    /// `TestResultSizeLimit`: the result shrunk to fit the limit, extend, the aspect ratio's
    /// canvas, rotation and padding counted.
    static let resultSizeLimit: [(options: String, width: Int, height: Int)] = [
        ("mrd:1000/rs:fit:100:100", 100, 50),
        ("mrd:50/rs:fit:100:100", 50, 25),
        ("mrd:50/rs:fit:0:0", 50, 25),
        ("mrd:100/rs:fit:0:100", 100, 50),
        ("mrd:50/rs:fit:150:0", 50, 25),
        ("mrd:100/rs:fit:1000:1000", 100, 50),
        ("mrd:100/rs:fit:1000:1000/el:1", 100, 50),
        ("mrd:100/rs:fit:1000:2000/ex:1", 50, 100),
        ("mrd:100/rs:fit:1000:2000/exar:1", 50, 100),
        ("mrd:100/rs:fit:100:150/rot:90", 50, 100),
        ("mrd:100/rs:fit:0:0/rot:90", 50, 100),
        ("mrd:200/rs:fit:100:100/pd:100:200:300:400", 200, 129),
        ("mrd:1000/rs:fill:100:100", 100, 100),
        ("mrd:50/rs:fill:100:100", 50, 50),
        ("mrd:50/rs:fill:1000:50", 50, 13),
        ("mrd:50/rs:fill:100:1000", 50, 50),
        ("mrd:50/rs:fill:0:0", 50, 25),
        ("mrd:100/rs:fill:0:100", 100, 50),
        ("mrd:50/rs:fill:150:0", 50, 25),
        ("mrd:100/rs:fill:1000:1000", 100, 50),
        ("mrd:100/rs:fill:1000:1000/el:1", 100, 100),
        ("mrd:100/rs:fill:1000:2000/ex:1", 50, 100),
        ("mrd:100/rs:fill:1000:2000/exar:1", 50, 100),
        ("mrd:100/rs:fill:100:150/rot:90", 67, 100),
        ("mrd:100/rs:fill:0:0/rot:90", 50, 100),
        ("mrd:200/rs:fill:100:100/pd:100:200:300:400", 200, 144),
        ("mrd:1000/rs:fill-down:100:100", 100, 100),
        ("mrd:50/rs:fill-down:100:100", 50, 50),
        ("mrd:50/rs:fill-down:1000:50", 50, 3),
        ("mrd:50/rs:fill-down:100:1000", 5, 50),
        ("mrd:50/rs:fill-down:0:0", 50, 25),
        ("mrd:100/rs:fill-down:0:100", 100, 50),
        ("mrd:50/rs:fill-down:150:0", 50, 25),
        ("mrd:100/rs:fill-down:1000:1000", 100, 100),
        ("mrd:100/rs:fill-down:1000:1000/el:1", 100, 100),
        ("mrd:100/rs:fill-down:1000:2000/ex:1", 50, 100),
        ("mrd:100/rs:fill-down:1000:2000/exar:1", 50, 100),
        ("mrd:100/rs:fill-down:1000:1500/rot:90", 67, 100),
        ("mrd:100/rs:fill-down:0:0/rot:90", 50, 100),
        ("mrd:200/rs:fill-down:100:100/pd:100:200:300:400", 200, 144),
        ("mrd:200/rs:fill-down:1000:1000/pd:100:200:300:400", 200, 144),
    ]

    /// `TestResizeToFitExtendAR`, `TestResizeToFillExtendAR`, `TestResizeToFillDownExtendAR`.
    static let extendAspectRatio: [(options: String, width: Int, height: Int)] = [
        ("rs:fit:50:50/exar:1", 50, 50),
        ("rs:fit:50:20/exar:1", 50, 20),
        ("rs:fit:20:50/exar:1", 20, 50),
        ("rs:fit:300:300/exar:1", 200, 200),
        ("rs:fit:300:125/exar:1", 240, 100),
        ("rs:fit:250:500/exar:1", 200, 400),
        ("rs:fit:0:50/exar:1", 100, 50),
        ("rs:fit:50:0/exar:1", 50, 25),
        ("rs:fit:0:200/exar:1", 200, 100),
        ("rs:fit:300:0/exar:1", 200, 100),
        ("rs:fill:50:50/exar:1", 50, 50),
        ("rs:fill:50:20/exar:1", 50, 20),
        ("rs:fill:20:50/exar:1", 20, 50),
        ("rs:fill:300:300/exar:1", 200, 200),
        ("rs:fill:300:125/exar:1", 240, 100),
        ("rs:fill:250:500/exar:1", 200, 400),
        ("rs:fill:300:50/exar:1", 300, 50),
        ("rs:fill:100:300/exar:1", 100, 300),
        ("rs:fill:0:50/exar:1", 100, 50),
        ("rs:fill:50:0/exar:1", 50, 25),
        ("rs:fill:0:200/exar:1", 200, 100),
        ("rs:fill:300:0/exar:1", 200, 100),
        ("rs:fill-down:50:50/exar:1", 50, 50),
        ("rs:fill-down:50:20/exar:1", 50, 20),
        ("rs:fill-down:20:50/exar:1", 20, 50),
        ("rs:fill-down:300:300/exar:1", 100, 100),
        ("rs:fill-down:300:125/exar:1", 200, 83),
        ("rs:fill-down:250:300/exar:1", 83, 100),
        ("rs:fill-down:0:50/exar:1", 100, 50),
        ("rs:fill-down:50:0/exar:1", 50, 25),
        ("rs:fill-down:0:200/exar:1", 200, 100),
        ("rs:fill-down:300:0/exar:1", 200, 100),
    ]

    /// Runs `body` with a server whose local root holds `geometry.png` (200x100, opaque), with
    /// `configure` applied; the security options allowed.
    static func withGeometrySource<T>(
        _ configure: @escaping (inout ImageServerConfiguration) -> Void = { _ in }, _ body: (ServerUnderTest) async throws -> T
    ) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-geometry-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let rocket = try ImageCodersManager.shared.decode(try SourceImages.data(SourceImages.rocket), options: ImageCoderOptions())
        let stretched = try #require(ResizingTransformer(size: CGSize(width: 200, height: 100), scaleMode: .fill).transformedImage(with: rocket, forKey: ""))
        try ImageCodersManager.shared.encode(stretched, format: .png, options: ImageCoderOptions()).write(to: folder.appendingPathComponent("geometry.png"))
        let configuration = ImageServerConfiguration.underTest {
            $0.localFilesystemRoot = folder.path
            $0.processing.allowSecurityOptions = true
            configure(&$0)
        }
        return try await withRunningServer(configuration, body)
    }

    /// The result of `options` on geometry.png, as PNG, decoded.
    static func result(_ server: ServerUnderTest, _ options: String) async throws -> WebImage.Image {
        let reply = try await server.get("/_/\(options)/plain/local:///geometry.png@png")
        try #require(reply.status == 200, "\(options): \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        return try ImageCodersManager.shared.decode(reply.body, options: ImageCoderOptions())
    }

    @Test func maxResultDimensionShrinksTheResultAsImgproxyDoes() async throws {
        try await Self.withGeometrySource { server in
            for (options, width, height) in Self.resultSizeLimit {
                let image = try await Self.result(server, options)
                #expect(image.pixelWidth == width && image.pixelHeight == height, "\(options): \(image.pixelWidth)x\(image.pixelHeight)")
            }
        }
    }

    @Test func theSettingShrinksAndTheOptionOverridesIt() async throws {
        try await Self.withGeometrySource({ $0.processing.maxResultDimension = 50 }) { server in
            let limited = try await Self.result(server, "rs:fit:100:100")
            #expect(limited.pixelWidth == 50 && limited.pixelHeight == 25)
            let padded = try await Self.result(server, "rs:fit:100:100/pd:10")
            // 100x50 with 10 around: 120x70, shrunk by 50/120 (padding too, rounded to even).
            #expect(padded.pixelWidth == 50 && padded.pixelHeight == 29, "\(padded.pixelWidth)x\(padded.pixelHeight)")
            let looser = try await Self.result(server, "mrd:150/rs:fit:100:100")
            #expect(looser.pixelWidth == 100 && looser.pixelHeight == 50)
            let off = try await Self.result(server, "mrd:0")
            #expect(off.pixelWidth == 200 && off.pixelHeight == 100)
        }
    }

    @Test func extendAspectRatioGivesImgproxysSizes() async throws {
        try await Self.withGeometrySource { server in
            for (options, width, height) in Self.extendAspectRatio {
                let image = try await Self.result(server, options)
                #expect(image.pixelWidth == width && image.pixelHeight == height, "\(options): \(image.pixelWidth)x\(image.pixelHeight)")
            }
        }
    }

    /// The rows where `image` is opaque at column `x`.
    static func opaqueRows(_ image: WebImage.Image, x: Int) -> [Int] {
        (0..<image.pixelHeight).filter { (image.pixel(x: x, y: $0)?.alpha ?? 0) == 255 }
    }

    @Test func extendAspectRatioPlacesTheImageByItsGravity() async throws {
        try await Self.withGeometrySource { server in
            // 200x100 in a 300x300 box: a 200x200 canvas, transparent where the image is not.
            for name in ["extend_aspect_ratio", "extend_ar", "exar"] {
                let centred = try await Self.result(server, "rs:fit:300:300/\(name):1")
                #expect(centred.pixelWidth == 200 && centred.pixelHeight == 200)
                #expect(Self.opaqueRows(centred, x: 100) == Array(50..<150), "\(name)")
            }
            let north = try await Self.result(server, "rs:fit:300:300/exar:1:no")
            #expect(Self.opaqueRows(north, x: 100) == Array(0..<100))
            // South, 10 pixels up from the bottom edge.
            let south = try await Self.result(server, "rs:fit:300:300/exar:1:so:0:10")
            #expect(Self.opaqueRows(south, x: 100) == Array(90..<190))
            // A box of the image's own ratio, or off: nothing added.
            let same = try await Self.result(server, "rs:fit:300:150/exar:1")
            #expect(same.pixelWidth == 200 && same.pixelHeight == 100 && Self.opaqueRows(same, x: 100).count == 100)
            let off = try await Self.result(server, "rs:fit:300:300/exar:0")
            #expect(off.pixelWidth == 200 && off.pixelHeight == 100)
            // Sideways: a 300x125 box makes the canvas wider; east puts the image on the right.
            let east = try await Self.result(server, "rs:fit:300:125/exar:1:ea")
            #expect(east.pixelWidth == 240 && east.pixelHeight == 100)
            #expect(east.pixel(x: 39, y: 50)?.alpha == 0 && east.pixel(x: 40, y: 50)?.alpha == 255)
            // Smart gravity does not place a canvas: 400 naming the option.
            let smart = try await server.get("/_/rs:fit:300:300/exar:1:sm/plain/local:///geometry.png@png")
            #expect(smart.status == 400 && String(decoding: smart.body, as: UTF8.self).contains("exar"))
        }
    }
}
