import Foundation
import WebImage
import WebImageSupport

/// An image three settings name (`*_DATA`, `*_PATH`, `*_URL`, in that order, as imgproxy takes
/// them), made into a `Value` by `make`: data and a file are read and made when the server is
/// made; a URL is fetched through the server's downloader (and its source guard) when first
/// needed, made, and kept (a failed fetch is tried again by the next caller). The fallback image
/// and the watermark are two.
final class ConfiguredImage<Value: Sendable>: Sendable {
    typealias Setting = (value: String?, name: PartialKeyPath<ImageServerConfiguration>)
    /// Makes the value of an image's bytes, or throws naming the setting (its names, as
    /// `ImageServerConfiguration.names(of:)` writes them) that gave them.
    typealias Make = @Sendable (Data, _ setting: String) throws(ImageServerConfigurationError) -> Value

    private enum Origin: Sendable {
        case made(Value)
        case url(URL, setting: String)
    }

    private let origin: Origin
    private let make: Make
    private let fetched = Locked<Value?>(nil)
    private let fetching = SharedWork<Value>()

    /// The image the first of `data` (base64), `path` and `url` that is set names; nil when none
    /// is. Throws, naming the setting, when the data is not base64, the file cannot be read, the
    /// URL is not an http(s) URL, or `make` refuses the bytes.
    init?(data: Setting, path: Setting, url: Setting, make: @escaping Make) throws(ImageServerConfigurationError) {
        self.make = make
        if let text = data.value {
            guard let bytes = SettingParser<String>.decodedBase64(text) else { throw .invalidSetting(data.name, "not standard base64") }
            origin = .made(try make(bytes, ImageServerConfiguration.names(of: data.name)))
        } else if let file = path.value {
            guard let bytes = FileManager.default.contents(atPath: file) else { throw .invalidSetting(path.name, "\(file) cannot be read") }
            origin = .made(try make(bytes, ImageServerConfiguration.names(of: path.name)))
        } else if let text = url.value {
            guard let address = URL(string: text), let scheme = address.scheme?.lowercased(), ["http", "https"].contains(scheme), address.host != nil else {
                throw .invalidSetting(url.name, "\"\(text)\" is not an http(s) URL")
            }
            origin = .url(address, setting: ImageServerConfiguration.names(of: url.name))
        } else {
            return nil
        }
    }

    /// The value, fetched with `downloader` first when it comes from a URL and has not arrived
    /// yet; throws, naming the URL's setting, when the fetch fails or `make` refuses its bytes.
    func value(downloader: ImageDownloader) async throws(ImageServerConfigurationError) -> Value {
        switch origin {
        case .made(let value):
            return value
        case .url(let url, let setting):
            if let value = fetched.withLock({ $0 }) { return value }
            let make = make
            do {
                let (value, _) = try await fetching.value(forKey: "image") {
                    let data = try await downloader.downloadData(with: url).data
                    // A full decode (an SVG's or a PDF's in a child process): off the cooperative pool.
                    return try await BlockingPool.run { try make(data, setting) }
                }
                fetched.withLock { $0 = value }
                return value
            } catch let error as ImageServerConfigurationError {
                throw error
            } catch {
                throw .invalidSetting(named: setting, "\(url.absoluteString) could not be fetched: \(error)")
            }
        }
    }
}
