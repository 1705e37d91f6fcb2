import Foundation
import WebImage

extension ImgproxyURLParser: ImageRequestParser {
    /// The serving side's view of an imgproxy URL: the source, the result key (the source URL,
    /// the canonical options and the output format plan's key), and the processing to run.
    public func imageRequest(path: Substring, accept: String?) throws(ImageServerError) -> ImageRequest {
        let request = try parse(path: String(path))
        let options = request.options
        let plan = OutputFormatPlan(options: options, accept: accept, configuration: configuration)
        let source: ImageSource
        if request.source.scheme == "local" {
            source = .local(String(request.source.url.dropFirst("local://".count)))
        } else if let url = URL(string: request.source.url), url.host != nil {
            source = .remote(url)
        } else {
            throw .invalidSource("\(request.source.url) is not a URL")
        }
        let processor = ImageProcessor()
        return ImageRequest(
            source: source,
            resultKey: request.source.url + "\n" + options.canonicalForm + "\n" + plan.cacheKey,
            variesWithAccept: plan.variesWithAccept && !options.raw,
            expires: options.expires.map { Date(timeIntervalSince1970: TimeInterval($0)) },
            filename: options.filename, isAttachment: options.returnAttachment,
            maximumSourceBytes: options.maxSourceFileSize > 0 ? options.maxSourceFileSize : nil,
            loggedPath: request.path
        ) { source in
            guard options.raw else { return try await processor.process(source.data, options: options, format: plan) }
            // `raw`: the source as it came, once it reads as an image (its header only).
            let header: ImageHeader
            do { header = try ImageHeader(probing: source.data) } catch { throw ImageServerError.unreadableSource("\(error)") }
            return ProcessedImage(
                data: source.data, format: header.format, pixelWidth: header.pixelWidth, pixelHeight: header.pixelHeight,
                frameCount: header.frameCount, source: header
            )
        }
    }
}
