import Foundation
@testable import WebImage

/// The repository's test images (Tests/Images) as sources for the processor.
enum SourceImages {
    static func data(_ name: String) throws -> Data {
        // Tests/WebImageServerTests/Support/SourceImages.swift -> Tests/Images
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try Data(contentsOf: tests.appendingPathComponent("Images").appendingPathComponent(name))
    }

    /// rocket.jpg: a 640x427 opaque photo.
    static let rocket = "photos/rocket.jpg"
    /// TestLoopCount.gif: 72x48, 2 frames.
    static let loopGIF = "sdwebimage/TestLoopCount.gif"
    /// TestImageAnimated.webp: 990x1050, 8 frames.
    static let animatedWebP = "sdwebimage/TestImageAnimated.webp"
    /// TestImage.png: 300x300 with alpha.
    static let alphaPNG = "sdwebimage/TestImage.png"

    /// A PNG whose header says 10000x6000 (60 MP, over the default 50 MP limit) and whose pixels
    /// are those of a 1x1 image: decoding it would fail as broken; the header alone refuses it.
    static func sixtyMegapixelPNG() throws -> [UInt8] {
        var bytes = [UInt8](try data("pngsuite/basn0g01.png"))
        let header = Array("IHDR".utf8) + withUnsafeBytes(of: UInt32(10_000).bigEndian, Array.init)
            + withUnsafeBytes(of: UInt32(6_000).bigEndian, Array.init) + Array(bytes[24..<29])
        bytes.replaceSubrange(12..<29, with: header)
        bytes.replaceSubrange(29..<33, with: withUnsafeBytes(of: CRC32.checksum(Data(header)).bigEndian, Array.init))
        return bytes
    }
}
