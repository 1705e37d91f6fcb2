/// The media types an `Accept` header names outright (wildcards do not count: a client that
/// takes `image/*` is not assumed to read AVIF), lowercased, those with `q=0` left out.
enum AcceptHeader {
    static func mediaTypes(in header: String?) -> Set<String> {
        guard let header else { return [] }
        var types: Set<String> = []
        for range in header.split(separator: ",") {
            let parts = range.split(separator: ";").map { String($0).trimmingSpaces.lowercased() }
            guard let type = parts.first, !type.isEmpty, !type.contains("*") else { continue }
            let refused = parts.dropFirst().contains { parameter in
                guard parameter.hasPrefix("q=") else { return false }
                return Double(parameter.dropFirst(2)) == 0
            }
            if !refused { types.insert(type) }
        }
        return types
    }
}
