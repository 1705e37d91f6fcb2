import Foundation
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// The playground gallery's portraits: one image of each picture in the local root's `faces`
/// folder (the astronaut once, not each of its copies; the portraits and the classroom added
/// with their licence) through `g:obj:face` (beside `g:sm`), `draw_detections` and
/// `blur_detections`.
@Suite(.offThePool, .timeLimit(.minutes(TestAllowance.minutes(5)))) struct PlaygroundFaceGalleryTests {
    /// The strings of the page's script list `const name = [...]`.
    static func list(_ name: String, in page: String) throws -> [String] {
        let start = try #require(page.range(of: "const \(name) = ["))
        let end = try #require(page[start.upperBound...].range(of: "];"))
        return page[start.upperBound..<end.lowerBound].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")) }
    }

    /// Every portrait tile is a result the server makes, and the face cut keeps the face (the
    /// classroom's, with no face found, is `g:sm`'s).
    @Test func thePortraitsAreCutOutlinedAndBlurredByTheirFaces() async throws {
        try await withRunningServer(PlaygroundTests.configuration()) { server in
            let page = String(decoding: try await server.get("/").body, as: UTF8.self)
            let portraits = try Self.list("portraits", in: page)
            let pictures = ["astronaut-1.jpg", "city-portrait.jpg", "classroom-tanzania.jpg", "grace-hopper.jpg", "woman-portrait.jpg"]
            #expect(portraits == pictures.map { "local:///faces/" + $0 })
            let optionSets = try Self.list("faceOptionSets", in: page)
            #expect(optionSets.contains("rs:fill:150:300/g:obj:face") && optionSets.contains { $0.contains("dd:1:face") } && optionSets.contains { $0.contains("bd:") })
            let signer = try URLSigner(key: URLSigningKey(hexKey: "736563726574", hexSalt: "68656c6c6f"))
            for source in portraits {
                for options in optionSets {
                    let reply = try await server.get(signer.signedPath("/" + options + "/plain/" + source))
                    #expect(reply.status == 200, "\(source) \(options): \(reply.status)")
                    guard options.hasSuffix("g:obj:face") else { continue }
                    let cut = try ImageCodersManager.shared.decode(reply.body, options: ImageCoderOptions())
                    #expect(cut.pixelWidth == 150 && cut.pixelHeight == 300)
                    guard source != "local:///faces/classroom-tanzania.jpg" else {
                        // The default detector finds no face in the classroom (docs/faces.md):
                        // its tile is `g:sm`'s, byte for byte.
                        let smart = try await server.get(signer.signedPath("/rs:fill:150:300/g:sm/plain/" + source))
                        #expect(smart.status == 200 && reply.body == smart.body)
                        continue
                    }
                    // The tall cut of a portrait holds the face: the detector finds it there.
                    #expect(try OpenCVFaceDetector.shared.faces(in: cut).count == 1, "\(source)")
                }
            }
        }
    }

    /// In headless Chromium the gallery holds a tile for each portrait and face option set.
    @Test func inChromiumTheGalleryShowsThePortraitTiles() async throws {
        try await PlaygroundTests.withChromium { chromium, browser, _ in try await withRunningServer(PlaygroundTests.configuration()) { server in
            let dom = try await ServeProcess.output(of: browser + ["--dump-dom", "http://127.0.0.1:\(server.port)/"], executable: chromium)
            for tile in ["astronaut-1.jpg rs:fill:150:300/g:obj:face", "grace-hopper.jpg rs:fill:150:300/g:obj:face", "classroom-tanzania.jpg rs:fit:300:300/dd:1:face", "woman-portrait.jpg rs:fit:300:300/bd:10:face"] {
                #expect(dom.contains("<figcaption>\(tile)</figcaption>"), "\(tile): \(dom.suffix(2000))")
            }
        } }
    }
}
