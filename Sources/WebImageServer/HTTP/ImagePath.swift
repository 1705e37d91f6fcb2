import Hummingbird

/// An image request's path as the routes see it: mounted under a prefix, the router matched
/// `<prefix>/**`, and that pattern names the prefix.
enum ImagePath {
    /// The path after the prefix, from its slash before the signature.
    static func path(_ request: Request, context: some RequestContext) -> Substring {
        let path = Substring(request.uri.path)
        guard let pattern = context.endpointPath, pattern.hasSuffix("/**") else { return path }
        let prefix = pattern.dropLast(3)
        guard path.hasPrefix(prefix) else { return path }
        return path.dropFirst(prefix.count)
    }

    /// The path as logs show it: the options and source, without the signature.
    static func logged(_ request: Request, context: some RequestContext) -> Substring {
        let path = path(request, context: context)
        guard let slash = path.dropFirst().firstIndex(of: "/") else { return "/" }
        return path[slash...]
    }
}
