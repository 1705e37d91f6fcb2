import Foundation
import Logging
import WebImage

/// The fallback image (`FALLBACK_IMAGE_DATA`, `_PATH`, `_URL`, in that order, as imgproxy
/// takes them): answered, processed with the request's options, when a source cannot be had or
/// read. Data and a file are read, and checked to be an image, at start; a URL is fetched (through
/// the server's downloader and its source guard) when first needed, and kept once it arrives
/// (a failed fetch is tried again by the next request that needs it).
final class FallbackImage: Sendable {
    private let image: ConfiguredImage<Data>

    /// The fallback image `configuration` names; nil when it names none. Throws when the data
    /// is not an image, or the file cannot be read or is not one, or the URL is not a URL.
    init?(configuration: ImageServerConfiguration) throws(ImageServerConfigurationError) {
        let image = try ConfiguredImage(
            data: (configuration.fallbackImageData, \.fallbackImageData), path: (configuration.fallbackImagePath, \.fallbackImagePath),
            url: (configuration.fallbackImageURL, \.fallbackImageURL)
        ) { data, setting throws(ImageServerConfigurationError) in
            do {
                _ = try ImageHeader(probing: data)
            } catch {
                throw .invalidSetting(named: setting, "not an image this server reads")
            }
            return data
        }
        guard let image else { return nil }
        self.image = image
    }

    /// The image's bytes: at once when given or kept, else fetched with `downloader`; nil (and
    /// a warning in `logger`) when the fetch fails.
    func data(downloader: ImageDownloader, logger: Logger) async -> Data? {
        do {
            return try await image.value(downloader: downloader)
        } catch {
            logger.warning("the fallback image could not be fetched", metadata: ["reason": "\(error)"])
            return nil
        }
    }
}
