import Logging

/// The server's loggers.
enum ImageServerLog {
    /// Everything but the access log.
    static let logger = Logger(label: "swift-webimage.server")
    /// One line a request (`AccessLog`).
    static let access = Logger(label: "swift-webimage.server.access")
}
