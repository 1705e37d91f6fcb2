import Foundation
import WebImage
import WebImageSupport

/// The server's watermark as configured (`WATERMARK_DATA`, `_PATH`, `_URL`, in that order, as
/// imgproxy takes them), decoded once. Data and a file are read and decoded when the server is
/// made; a URL is fetched through the server's downloader (and its source guard) once: by
/// `ImageServer.run` before it listens, or, for a mounted server, by the first request that
/// draws the mark (a failed fetch is tried again by the next).
final class WatermarkImage: Sendable {
    private enum Origin {
        case mark(WatermarkMark)
        case url(URL)
    }

    private let origin: Origin
    private let baseOpacity: Double
    private let fetched = Locked<WatermarkMark?>(nil)
    private let fetching = SharedWork<WatermarkMark>()

    /// The watermark `configuration` names; nil when it names none. Throws, naming the setting,
    /// when the data is not base64 of an image, the file cannot be read or is not an image, or
    /// the URL is not an http(s) URL.
    init?(configuration: ImageServerConfiguration) throws(ImageServerConfigurationError) {
        baseOpacity = configuration.watermarkOpacity
        if let text = configuration.watermarkData {
            guard let data = SettingParser<String>.decodedBase64(text) else { throw .invalidWatermark(\.watermarkData, "not standard base64") }
            origin = .mark(try Self.mark(data, baseOpacity: baseOpacity, setting: \.watermarkData))
        } else if let path = configuration.watermarkPath {
            guard let data = FileManager.default.contents(atPath: path) else { throw .invalidWatermark(\.watermarkPath, "\(path) cannot be read") }
            origin = .mark(try Self.mark(data, baseOpacity: baseOpacity, setting: \.watermarkPath))
        } else if let text = configuration.watermarkURL {
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
                throw .invalidWatermark(\.watermarkURL, "\"\(text)\" is not an http(s) URL")
            }
            origin = .url(url)
        } else {
            return nil
        }
    }

    /// The mark, fetched with `downloader` first when it comes from a URL and has not arrived
    /// yet; throws, naming `WATERMARK_URL`, when the fetch fails or does not give an image.
    func mark(downloader: ImageDownloader) async throws(ImageServerConfigurationError) -> WatermarkMark {
        switch origin {
        case .mark(let mark):
            return mark
        case .url(let url):
            if let mark = fetched.withLock({ $0 }) { return mark }
            let baseOpacity = baseOpacity
            do {
                let (mark, _) = try await fetching.value(forKey: "watermark") {
                    try Self.mark(try await downloader.downloadData(with: url).data, baseOpacity: baseOpacity, setting: \.watermarkURL)
                }
                fetched.withLock { $0 = mark }
                return mark
            } catch let error as ImageServerConfigurationError {
                throw error
            } catch {
                throw .invalidWatermark(\.watermarkURL, "\(url.absoluteString) could not be fetched: \(error)")
            }
        }
    }

    private static func mark(_ data: Data, baseOpacity: Double, setting: PartialKeyPath<ImageServerConfiguration>) throws(ImageServerConfigurationError) -> WatermarkMark {
        guard let mark = WatermarkMark(data: data, baseOpacity: baseOpacity) else { throw .invalidWatermark(setting, "not an image this server reads") }
        return mark
    }
}
