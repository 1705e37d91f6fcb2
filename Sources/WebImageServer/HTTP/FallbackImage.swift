import Foundation
import Logging
import WebImage
import WebImageSupport

/// The fallback image (`FALLBACK_IMAGE_DATA`, `_PATH`, `_URL`, in that order, as imgproxy
/// takes them): answered, processed with the request's options, when a source cannot be had or
/// read. Data and a file are read, and checked to be an image, at start; a URL is fetched (through
/// the server's downloader and its source guard) when first needed, and kept once it arrives
/// (a failed fetch is tried again by the next request that needs it).
final class FallbackImage: Sendable {
    private enum Origin {
        case bytes(Data)
        case url(URL)
    }

    private let origin: Origin
    private let fetched = Locked<Data?>(nil)
    private let fetching = SharedWork<Data>()

    /// The fallback image `configuration` names; nil when it names none. Throws when the data
    /// is not an image, or the file cannot be read or is not one, or the URL is not a URL.
    init?(configuration: ImageServerConfiguration) throws(ImageServerConfigurationError) {
        if let text = configuration.fallbackImageData {
            guard let data = SettingParser<String>.decodedBase64(text) else {
                throw Self.problem(\.fallbackImageData, "not standard base64")
            }
            try Self.checkImage(data, setting: \.fallbackImageData)
            origin = .bytes(data)
        } else if let path = configuration.fallbackImagePath {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw Self.problem(\.fallbackImagePath, "\(path) cannot be read")
            }
            try Self.checkImage(data, setting: \.fallbackImagePath)
            origin = .bytes(data)
        } else if let text = configuration.fallbackImageURL {
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
                throw Self.problem(\.fallbackImageURL, "\"\(text)\" is not an http(s) URL")
            }
            origin = .url(url)
        } else {
            return nil
        }
    }

    /// The image's bytes: at once when given or kept, else fetched with `downloader`; nil (and
    /// a warning in `logger`) when the fetch fails.
    func data(downloader: ImageDownloader, logger: Logger) async -> Data? {
        switch origin {
        case .bytes(let data):
            return data
        case .url(let url):
            if let data = fetched.withLock({ $0 }) { return data }
            do {
                let (data, _) = try await fetching.value(forKey: "fallback") {
                    let data = try await downloader.downloadData(with: url).data
                    try Self.checkImage(data, setting: \.fallbackImageURL)
                    return data
                }
                fetched.withLock { $0 = data }
                return data
            } catch {
                logger.warning("the fallback image could not be fetched", metadata: ["reason": "\(error)"])
                return nil
            }
        }
    }

    private static func checkImage(_ data: Data, setting: PartialKeyPath<ImageServerConfiguration>) throws(ImageServerConfigurationError) {
        do {
            _ = try ImageHeader(probing: data)
        } catch {
            throw problem(setting, "not an image this server reads")
        }
    }

    private static func problem(_ setting: PartialKeyPath<ImageServerConfiguration>, _ reason: String) -> ImageServerConfigurationError {
        ImageServerConfigurationError(problems: ["\(ImageServerConfiguration.names(of: setting)): \(reason)"])
    }
}
