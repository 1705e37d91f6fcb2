import Crypto

/// What one image request asks the server to make, decided before any fetch: the request, its
/// output format's plan, and the key its result is stored and shared under. A value, so that
/// the making can read it and the log can show it.
struct ImageJob: Sendable, CustomStringConvertible {
    let request: ImageRequest
    let format: OutputFormatPlan
    /// The `Cookie` header the source's fetch carries (`COOKIE_PASSTHROUGH`); nil: none.
    let sourceCookie: String?
    /// The server's mark, when the request draws it (`watermark` with an opacity above 0).
    let watermark: WatermarkMark?
    let key: ResultKey

    /// `requestParts`: the lines `CACHE_KEY_HEADERS` and `CACHE_KEY_COOKIES` add to the key.
    init(
        request: ImageRequest, format: OutputFormatPlan, sourceCookie: String? = nil, watermark: WatermarkMark? = nil, requestParts: [String] = []
    ) {
        self.request = request
        self.format = format
        self.sourceCookie = sourceCookie
        self.watermark = watermark
        key = ResultKey(request: request, format: format, sourceCookie: sourceCookie, watermark: watermark?.identity, requestParts: requestParts)
    }

    /// The source, the canonical options and the format's plan, on one line.
    var description: String {
        "\(request.source) \(request.canonicalForm) \(format.cacheKey)"
    }
}

/// What identifies a result: the source, the processing asked for (the options' canonical
/// form: defaults and presets expanded, order normalised) and the output format's plan (the
/// URL's format, or the formats the request's `Accept` lets the server choose). Never the
/// signature, which changes with key rotation. A source fetched with the request's cookies adds
/// a digest of them: one client's result is never another's. A result that draws the server's
/// watermark adds the mark's identity: a changed mark makes new results. The request's headers
/// and cookies named by `CACHE_KEY_HEADERS` and `CACHE_KEY_COOKIES` add a line each.
struct ResultKey: Hashable, Sendable {
    /// The parts on lines of their own: the stores' key, and what entity tags digest.
    let text: String

    init(request: ImageRequest, format plan: OutputFormatPlan, sourceCookie: String? = nil, watermark: String? = nil, requestParts: [String] = []) {
        self.init(
            text: request.source.description + "\n" + request.canonicalForm + "\n" + plan.cacheKey, sourceCookie: sourceCookie, watermark: watermark,
            requestParts: requestParts
        )
    }

    /// `text`, then a digest of `sourceCookie`, the mark's identity and `requestParts`, each on
    /// a line of its own when there is one.
    init(text: String, sourceCookie: String?, watermark: String? = nil, requestParts: [String] = []) {
        var text = text
        if let sourceCookie {
            let digest = SHA256.hash(data: Array(sourceCookie.utf8)).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            text += "\ncookie " + digest
        }
        if let watermark { text += "\nwatermark " + watermark }
        for part in requestParts { text += "\n" + part }
        self.text = text
    }
}
