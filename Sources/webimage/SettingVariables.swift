import WebImageServer

extension ImageServerConfiguration {
    /// `WEBIMAGE_KEY or IMGPROXY_KEY` for `\.keys`: where the server reads a setting from, as
    /// the commands' help names it.
    static func variables(of property: PartialKeyPath<ImageServerConfiguration>) -> String {
        environmentNames(of: property).joined(separator: " or ")
    }
}
