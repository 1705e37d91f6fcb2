/// What one image request asks the server to make, decided before any fetch: the request, its
/// output format's plan, and the key its result is stored and shared under. A value, so that
/// the making can read it and the log can show it.
struct ImageJob: Sendable, CustomStringConvertible {
    let request: ImageRequest
    let format: OutputFormatPlan
    let key: ResultKey

    init(request: ImageRequest, format: OutputFormatPlan) {
        self.request = request
        self.format = format
        key = ResultKey(request: request, format: format)
    }

    /// The source, the canonical options and the format's plan, on one line.
    var description: String {
        "\(request.source) \(request.canonicalForm) \(format.cacheKey)"
    }
}

/// What identifies a result: the source, the processing asked for (the options' canonical
/// form: defaults and presets expanded, order normalised) and the output format's plan (the
/// URL's format, or the formats the request's `Accept` lets the server choose). Never the
/// signature, which changes with key rotation.
struct ResultKey: Hashable, Sendable {
    /// The three parts on lines of their own: the stores' key, and what entity tags digest.
    let text: String

    init(request: ImageRequest, format plan: OutputFormatPlan) {
        text = request.source.description + "\n" + request.canonicalForm + "\n" + plan.cacheKey
    }
}
