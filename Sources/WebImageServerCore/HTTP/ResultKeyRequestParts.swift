import HTTPTypes

/// The parts of a request that `CACHE_KEY_HEADERS` and `CACHE_KEY_COOKIES` put in its result's
/// key: each named header's values and each named cookie's value, in the order the settings
/// name them (an absent one is written empty, so that absent and present differ).
struct ResultKeyRequestParts: Sendable {
    private let headers: [(setting: String, name: HTTPField.Name)]
    private let cookies: [String]

    /// Nil when neither setting names anything (the common case: nothing to read per request).
    init?(_ settings: ResultCacheSettings) {
        let headers = settings.keyHeaders.compactMap { name in HTTPField.Name(name).map { (setting: name.lowercased(), name: $0) } }
        guard !headers.isEmpty || !settings.keyCookies.isEmpty else { return nil }
        self.headers = headers
        cookies = settings.keyCookies
    }

    /// The lines `request` adds to its result's key: `header NAME: VALUES`, `cookie NAME=VALUE`.
    func lines(of request: HTTPRequest) -> [String] {
        var lines = headers.map { header in
            "header \(header.setting): " + request.headerFields[values: header.name].joined(separator: ", ")
        }
        if !cookies.isEmpty {
            let sent = SourceCookies.lastOfEachName(SourceCookies.cookies(in: request.headerFields[values: .cookie]))
            for name in cookies {
                lines.append("cookie \(name)=" + (sent.first { $0.name == name }?.value ?? ""))
            }
        }
        return lines
    }
}
