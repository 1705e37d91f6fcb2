import Foundation
import Testing
import WebImage
import WebImageTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
import WebImageTestSupport
#endif

@Suite("Loading: downloader responses", .offThePool) struct ImageDownloaderResponseTests {
    @Test func downloadsAndDecodesAnImageWithItsResponseAndValidators() async throws {
        try await withOrigin { server in
            let downloader = makeDownloader()
            let result = try await downloader.downloadImage(with: server.url("/images/photos/rocket.jpg"))
            #expect(result.image.pixelWidth == 640 && result.image.pixelHeight == 427 && result.image.format == .jpeg)
            #expect(result.data == (try TestImages.data("photos/rocket.jpg")))
            #expect(result.response?.statusCode == 200)
            #expect(result.validators?.entityTag?.hasPrefix("\"") == true)
            #expect(result.validators?.lastModified == "Tue, 24 Nov 2026 00:00:00 GMT")
            #expect(result.metrics.bytesReceived == result.data.count && result.metrics.retryCount == 0)
            #expect(result.metrics.timeToFirstByte != nil && result.metrics.totalTime > 0)
            let request = try #require(server.statistics.requestLog["/images/photos/rocket.jpg"]?.first)
            #expect(request.header("Accept") == "image/*,*/*;q=0.8")
            #expect(request.header("User-Agent")?.contains("swift-webimage") == true)
        }
    }

    @Test func headersCanBeSetReadAndRemoved() async throws {
        let downloader = makeDownloader()
        #expect(downloader.value(forHTTPHeaderField: "Accept") == "image/*,*/*;q=0.8")
        downloader.setValue("Tests", forHTTPHeaderField: "AppName")
        #expect(downloader.value(forHTTPHeaderField: "AppName") == "Tests")
        try await withOrigin { server in
            _ = try await downloader.downloadImage(with: server.url("/images/sdwebimage/TestImage.png"))
            #expect(server.statistics.requestLog["/images/sdwebimage/TestImage.png"]?.first?.header("AppName") == "Tests")
        }
        downloader.setValue(nil, forHTTPHeaderField: "AppName")
        #expect(downloader.value(forHTTPHeaderField: "AppName") == nil)
    }

    @Test func aNilOrEmptyURLCompletesAtOnceWithInvalidURL() async {
        let downloader = makeDownloader()
        for url in [nil, URL(string: "")] as [URL?] {
            let (token, recorder) = downloader.recordedDownload(url)
            #expect(token == nil)
            #expect(recorder.completionCount == 1)   // synchronously
            #expect(await recorder.outcome().webImageError == .invalidURL)
        }
    }

    @Test func a404IsInvalidDownloadStatusCodeWithTheResponse() async throws {
        try await withOrigin { server in
            let (token, recorder) = makeDownloader().recordedDownload(server.url("/status/404"))
            let outcome = await recorder.outcome()
            #expect(outcome.image == nil && outcome.data == nil)
            guard case .invalidDownloadStatusCode(let status, let response)? = outcome.webImageError else {
                Issue.record("expected invalidDownloadStatusCode, got \(String(reflecting: outcome.error))")
                return
            }
            #expect(status == 404 && response?.statusCode == 404 && token?.response?.statusCode == 404)
            #expect(outcome.webImageError?.code == 2001)
            #expect(server.requestCount("/status/404") == 1)   // a 404 is not retried
        }
    }

    @Test func statusAndContentTypeOutsideTheAcceptableSetsAreRefused() async throws {
        try await withOrigin { server in
            let onlyOne = makeDownloader { $0.acceptableStatusCodes = [1] }
            let (statusToken, statusRecorder) = onlyOne.recordedDownload(server.url("/images/photos/rocket.jpg"))
            #expect(await statusRecorder.outcome().webImageError == .invalidDownloadStatusCode(statusCode: 200, response: nil))
            #expect(statusToken?.response?.statusCode == 200)

            let pngOnly = makeDownloader { $0.acceptableContentTypes = ["image/png"] }
            let html = await pngOnly.recordedDownload(server.url("/images/photos/rocket.jpg?type=text/html")).1.outcome()
            guard case .invalidDownloadContentType(let mimeType, let response)? = html.webImageError else {
                Issue.record("expected invalidDownloadContentType, got \(String(describing: html.error))")
                return
            }
            #expect(mimeType == "text/html" && response?.statusCode == 200 && html.webImageError?.code == 2004)
            #expect(await pngOnly.recordedDownload(server.url("/images/sdwebimage/TestImage.png")).1.outcome().image != nil)
        }
    }

    @Test func anEmptyBodyOrRandomBytesAreBadImageData() async throws {
        try await withOrigin { server in
            let downloader = makeDownloader()
            #expect(await downloader.recordedDownload(server.url("/empty")).1.outcome().webImageError == .badImageData)
            #expect(await downloader.recordedDownload(server.url("/random/4096")).1.outcome().webImageError == .badImageData)
            #expect(server.requestCount("/random/4096") == 1)
        }
    }

    @Test func basicAuthIsSentFromTheConfig() async throws {
        try await withOrigin { server in
            let path = "/images/photos/rocket.jpg?auth=httpwatch:httpwatch01"
            let anonymous = await makeDownloader().recordedDownload(server.url(path)).1.outcome()
            #expect(anonymous.webImageError == .invalidDownloadStatusCode(statusCode: 401, response: nil))
            let authorized = makeDownloader { $0.username = "httpwatch"; $0.password = "httpwatch01" }
            #expect(await authorized.recordedDownload(server.url(path)).1.outcome().image?.pixelWidth == 640)
        }
    }

    @Test func theRequestModifierChangesTheRequestOrRefusesIt() async throws {
        try await withOrigin { server in
            let downloader = makeDownloader()
            downloader.requestModifier = DownloaderRequestModifier { request in
                var request = request
                request.setValue("Bar", forHTTPHeaderField: "Foo")
                return request
            }
            let result = try await downloader.downloadImage(with: server.url("/images/sdwebimage/TestImage.png"))
            #expect(result.image.pixelWidth == 300)
            #expect(server.statistics.requestLog["/images/sdwebimage/TestImage.png"]?.first?.header("Foo") == "Bar")

            var context = WebImageContext()
            context.downloadRequestModifier = DownloaderRequestModifier { _ in nil }
            let (token, recorder) = downloader.recordedDownload(server.url("/images/photos/rocket.jpg"), context: context)
            #expect(token == nil)
            #expect(await recorder.outcome().webImageError == .invalidDownloadOperation)
            #expect(server.requestCount("/images/photos/rocket.jpg") == 0)
        }
    }

    @Test func headerModifierSetsExactlyItsHeaders() throws {
        let url = try #require(URL(string: "http://example.invalid/x.png"))
        let modified = DownloaderRequestModifier(headers: ["Biz": "Bazz"]).modifiedRequest(with: URLRequest(url: url))
        #expect(modified?.allHTTPHeaderFields == ["Biz": "Bazz"] && modified?.httpMethod == "GET")
        let response = try #require(HTTPURLResponse(url: url, statusCode: 404, httpVersion: "HTTP/1.1", headerFields: [:]))
        let replaced = DownloaderResponseModifier(headers: ["Biz": "Bazz"]).modifiedResponse(with: response)
        #expect(replaced?.statusCode == 200 && replaced?.allHeaderFields as? [String: String] == ["Biz": "Bazz"])
    }

    @Test func theResponseModifierReplacesTheResponseOrRefusesIt() async throws {
        try await withOrigin { server in
            let downloader = makeDownloader()
            downloader.responseModifier = DownloaderResponseModifier { response in
                var fields = response.allHeaderFields as? [String: String] ?? [:]
                fields["Foo"] = "Bar"
                return response.url.flatMap { HTTPURLResponse(url: $0, statusCode: 404, httpVersion: "HTTP/1.1", headerFields: fields) }
            }
            let (token, recorder) = downloader.recordedDownload(server.url("/images/photos/rocket.jpg"))
            #expect(await recorder.outcome().webImageError == .invalidDownloadStatusCode(statusCode: 404, response: nil))
            #expect(token?.response?.statusCode == 404 && token?.response?.value(forHTTPHeaderField: "Foo") == "Bar")

            var context = WebImageContext()
            context.downloadResponseModifier = DownloaderResponseModifier { _ in nil }
            let refused = await downloader.recordedDownload(server.url("/images/sdwebimage/TestImage.png"), context: context).1.outcome()
            #expect(refused.webImageError == .invalidDownloadResponse && refused.webImageError?.code == 2003)
        }
    }

    @Test func theBase64DecryptorTurnsABase64BodyIntoTheImage() async throws {
        try await withOrigin { server in
            let png = try TestImages.data("sdwebimage/TestImage.png")
            let encoded = Array(png.base64EncodedString(options: .lineLength76Characters).utf8)
            server.route("/base64") { _ in .content(encoded, type: "text/plain") }
            let downloader = makeDownloader()
            downloader.decryptor = DownloaderDecryptor.base64
            let result = try await downloader.downloadImage(with: server.url("/base64"))
            #expect(result.image.pixelWidth == 300 && result.data == png)

            var context = WebImageContext()
            context.downloadDecryptor = DownloaderDecryptor { _, _ in nil }
            #expect(await downloader.recordedDownload(server.url("/base64"), context: context).1.outcome().webImageError == .badImageData)
        }
    }

    @Test func revalidationTurnsA304IntoCacheNotModifiedAndAChangeIntoTheImage() async throws {
        try await withOrigin { server in
            let downloader = makeDownloader()
            let url = server.url("/images/sdwebimage/TestImage.jpg")
            let first = try await downloader.downloadImage(with: url)
            var context = WebImageContext()
            #expect(first.validators != nil)
            context.downloadValidators = first.validators
            let (_, recorder) = downloader.recordedDownload(url, context: context)
            let notModified = await recorder.outcome()
            #expect(notModified.webImageError == .cacheNotModified && notModified.webImageError?.code == 1002, "\(String(reflecting: notModified.error))")
            let log = try #require(server.statistics.requestLog["/images/sdwebimage/TestImage.jpg"])
            #expect(log.count == 2 && log[1].header("If-None-Match") == first.validators?.entityTag)
            #expect(log[1].header("If-Modified-Since") == first.validators?.lastModified)

            context.downloadValidators = HTTPValidators(entityTag: "\"stale\"")
            let changed = try await downloader.downloadImage(with: url, context: context)
            #expect(changed.image.pixelWidth == 80 && changed.validators == first.validators)
        }
    }

    @Test func validatorsRoundTripThroughExtendedData() throws {
        let validators = HTTPValidators(entityTag: "W/\"abc\"", lastModified: "Tue, 24 Nov 2026 00:00:00 GMT")
        let data = try #require(validators.extendedData)
        #expect(HTTPValidators(extendedData: data) == validators)
        #expect(!validators.hasStrongEntityTag && HTTPValidators(entityTag: "\"abc\"").hasStrongEntityTag)
        #expect(HTTPValidators(extendedData: Data("not json".utf8)) == nil)
    }
}
