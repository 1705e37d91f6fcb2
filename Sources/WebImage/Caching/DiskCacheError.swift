import Glibc

/// Why a disk cache operation failed.
public struct DiskCacheError: Error, Sendable, CustomStringConvertible {
    /// The system call or step that failed.
    public let operation: String
    /// The file or folder it failed on.
    public let path: String
    /// The `errno` it failed with.
    public let code: Int32

    /// "operation path: reason".
    public var description: String {
        "\(operation) \(path): \(String(cString: strerror(code)))"
    }
}
