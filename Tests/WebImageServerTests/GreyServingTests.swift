import Foundation
import ImageEngine
import Testing
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// What imgproxy keeps and a user checks with `vipsheader`: a grey source answered grey (one
/// band, two with alpha) through a resize in PNG and JPEG, and a 16-bit PNG answered 16-bit
/// with `preserve_hdr` (imgproxy 4.0's `8-bpp-grayscale.png` and GREY16 cases).
@Suite(.offThePool) struct GreyServingTests {
    static func path(_ origin: TestServer, _ file: String, options: String, format: String) -> String {
        "/unsafe" + ImagePathBuilder.path(options: options, sourceURL: origin.url("/images/" + file).absoluteString, format: format)
    }

    /// The answer as libvips reads it: bands, interpretation, sample format.
    static func read(_ reply: ServerUnderTest.Reply, loader: String) throws -> (bands: Int, interpretation: String, sixteenBit: Bool) {
        #expect(reply.status == 200, "\(String(decoding: reply.body.prefix(200), as: UTF8.self))")
        let image = try VipsImageRef.load(loader, data: reply.body)
        return (image.bands, image.interpretationName, image.isSixteenBit)
    }

    @Test func aGreySourceIsAnsweredGreyThroughAResize() async throws {
        try await withOrigin { origin in
            try await withRunningServer(.fetchingFromLoopback()) { server in
                let grey = try await server.get(Self.path(origin, "pngsuite/basn0g08.png", options: "rs:fit:16:16", format: "png"))
                #expect(try Self.read(grey, loader: "pngload_buffer") == (1, "b-w", false))
                let greyAlpha = try await server.get(Self.path(origin, "pngsuite/basn4a08.png", options: "rs:fit:16:16", format: "png"))
                #expect(try Self.read(greyAlpha, loader: "pngload_buffer") == (2, "b-w", false))
                let jpeg = try await server.get(Self.path(origin, "pngsuite/basn0g16.png", options: "rs:fit:16:16", format: "jpg"))
                #expect(try Self.read(jpeg, loader: "jpegload_buffer") == (1, "b-w", false))
                // A colour source, and a grey one tinted (imgproxy Pro's colorize is not ours: a
                // coloured background under transparency does it), come out in colour.
                let colour = try await server.get(Self.path(origin, "pngsuite/basn2c08.png", options: "rs:fit:16:16", format: "png"))
                #expect(try Self.read(colour, loader: "pngload_buffer").interpretation == "srgb")
                let onRed = try await server.get(Self.path(origin, "pngsuite/basn4a08.png", options: "rs:fit:16:16/bg:255:0:0", format: "jpg"))
                #expect(try Self.read(onRed, loader: "jpegload_buffer") == (3, "srgb", false))
            }
        }
    }

    @Test func aSixteenBitPNGStaysSixteenBitWithPreserveHDR() async throws {
        try await withOrigin { origin in
            try await withRunningServer(.fetchingFromLoopback()) { server in
                let grey = try await server.get(Self.path(origin, "pngsuite/basn0g16.png", options: "ph:1", format: "png"))
                #expect(try Self.read(grey, loader: "pngload_buffer") == (1, "grey16", true))
                let colour = try await server.get(Self.path(origin, "libjpeg-turbo/monkey16.png", options: "ph:1", format: "png"))
                #expect(try Self.read(colour, loader: "pngload_buffer") == (3, "rgb16", true))
                let eight = try await server.get(Self.path(origin, "libjpeg-turbo/monkey16.png", options: "ph:0", format: "png"))
                #expect(try Self.read(eight, loader: "pngload_buffer") == (3, "srgb", false))
            }
        }
    }
}
