import Foundation
import WebImage

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
}
