import Foundation
import WebImage

/// The server's watermark as configured (`WATERMARK_DATA`, `_PATH`, `_URL`, in that order, as
/// imgproxy takes them), decoded once. Data and a file are read and decoded when the server is
/// made; a URL is fetched through the server's downloader (and its source guard) once: by
/// `ImageServer.run` before it listens, or, for a mounted server, by the first request that
/// draws the mark (a failed fetch is tried again by the next).
final class WatermarkImage: Sendable {
    private let image: ConfiguredImage<WatermarkMark>

    /// The watermark `configuration` names; nil when it names none. Throws, naming the setting,
    /// when the data is not base64 of an image, the file cannot be read or is not an image, or
    /// the URL is not an http(s) URL.
    init?(configuration: ImageServerConfiguration) throws(ImageServerConfigurationError) {
        let baseOpacity = configuration.watermarkOpacity
        let image = try ConfiguredImage(
            data: (configuration.watermarkData, \.watermarkData), path: (configuration.watermarkPath, \.watermarkPath),
            url: (configuration.watermarkURL, \.watermarkURL)
        ) { data, setting throws(ImageServerConfigurationError) in
            guard let mark = WatermarkMark(data: data, baseOpacity: baseOpacity) else { throw .invalidSetting(named: setting, "not an image this server reads") }
            return mark
        }
        guard let image else { return nil }
        self.image = image
    }

    /// The mark, fetched with `downloader` first when it comes from a URL and has not arrived
    /// yet; throws, naming `WATERMARK_URL`, when the fetch fails or does not give an image.
    func mark(downloader: ImageDownloader) async throws(ImageServerConfigurationError) -> WatermarkMark {
        try await image.value(downloader: downloader)
    }
}
