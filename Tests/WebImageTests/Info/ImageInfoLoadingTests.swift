import Foundation
import Testing
import WebImage
import WebImageTestServer
import WebImageTestSupport

/// `ImageInfo(url:)`: the same info from an HTTP origin and from a file as from the bytes.
@Suite(.offThePool) struct ImageInfoLoadingTests {
    @Test func httpAndFileURLsGiveTheInfoOfTheirBytes() async throws {
        let file = "exif-orientation/Landscape_6.jpg"
        let options = try InfoOptions(parsing: "chs:sha256/pn:1")
        let expected = try ImageInfo(data: TestImages.data(file), options: options)
        try await withOrigin { server in
            let downloaded = try await ImageInfo(url: server.url("/images/\(file)"), options: options, downloader: ImageDownloader(config: .default))
            #expect(downloaded == expected)
            #expect(downloaded.pixelWidth == 1800 && downloaded.orientation == 6)
            await #expect(throws: (any Error).self) {
                try await ImageInfo(url: server.url("/missing.jpg"), downloader: ImageDownloader(config: .default))
            }
        }
        let local = try await ImageInfo(url: TestImages.url(file), options: options)
        #expect(local == expected)
    }
}
