import Foundation
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// The playground gallery's portraits: the first images of the local root's `faces` folder
/// through `g:obj:face` (beside `g:sm`), `draw_detections` and `blur_detections`.
@Suite(.offThePool, .timeLimit(.minutes(TestAllowance.minutes(5)))) struct PlaygroundFaceGalleryTests {
    /// The strings of the page's script list `const name = [...]`.
    static func list(_ name: String, in page: String) throws -> [String] {
        let start = try #require(page.range(of: "const \(name) = ["))
        let end = try #require(page[start.upperBound...].range(of: "];"))
        return page[start.upperBound..<end.lowerBound].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")) }
    }

    /// Every portrait tile is a result the server makes, and the face cut keeps the face.
    @Test func thePortraitsAreCutOutlinedAndBlurredByTheirFaces() async throws {
        try await withRunningServer(PlaygroundTests.configuration()) { server in
            let page = String(decoding: try await server.get("/").body, as: UTF8.self)
            let portraits = try Self.list("portraits", in: page)
            #expect(portraits == ["local:///faces/astronaut-1.jpg", "local:///faces/astronaut-2.jpg", "local:///faces/astronaut-3.jpg"])
            let optionSets = try Self.list("faceOptionSets", in: page)
            #expect(optionSets.contains("rs:fill:150:300/g:obj:face") && optionSets.contains { $0.contains("dd:1:face") } && optionSets.contains { $0.contains("bd:") })
            let signer = try URLSigner(key: URLSigningKey(hexKey: "736563726574", hexSalt: "68656c6c6f"))
            for source in portraits {
                for options in optionSets {
                    let reply = try await server.get(signer.signedPath("/" + options + "/plain/" + source))
                    #expect(reply.status == 200, "\(source) \(options): \(reply.status)")
                    guard options.hasSuffix("g:obj:face") else { continue }
                    // The tall cut of a landscape portrait holds the face: the detector finds it there.
                    let cut = try ImageCodersManager.shared.decode(reply.body, options: ImageCoderOptions())
                    #expect(cut.pixelWidth == 150 && cut.pixelHeight == 300)
                    #expect(try OpenCVFaceDetector.shared.faces(in: cut).count == 1, "\(source)")
                }
            }
        }
    }

    /// In headless Chromium the gallery holds a tile for each portrait and face option set.
    @Test func inChromiumTheGalleryShowsThePortraitTiles() async throws {
        try await PlaygroundTests.withChromium { chromium, browser, _ in try await withRunningServer(PlaygroundTests.configuration()) { server in
            let dom = try await ServeProcess.output(of: browser + ["--dump-dom", "http://127.0.0.1:\(server.port)/"], executable: chromium)
            for tile in ["astronaut-1.jpg rs:fill:150:300/g:obj:face", "astronaut-3.jpg rs:fit:300:300/dd:1:face", "astronaut-2.jpg rs:fit:300:300/bd:10:face"] {
                #expect(dom.contains("<figcaption>\(tile)</figcaption>"), "\(tile): \(dom.suffix(2000))")
            }
        } }
    }
}
