import CXattr
import Foundation
import Glibc

/// Why an extended attribute could not be read, written or removed.
public enum ExtendedAttributeError: Error, Sendable, Equatable {
    /// The file system does not take extended attributes of this namespace (tmpfs before
    /// Linux 6.6, some overlay and network file systems refuse `user.` ones).
    case notSupported
    /// The file has no attribute of that name.
    case noSuchAttribute
    /// The value is larger than an attribute may be (64 KiB on Linux).
    case valueTooLarge
    /// No room for the value: the file's attribute space (about one block on ext4) or the disk is full.
    case noSpace
    /// There is no file at the path.
    case noSuchFile
    /// Any other failure, with its `errno`.
    case system(errno: Int32)

    init(errno code: Int32) {
        switch code {
        case ENOTSUP, EOPNOTSUPP: self = .notSupported
        case ENODATA: self = .noSuchAttribute
        case E2BIG, ERANGE: self = .valueTooLarge
        case ENOSPC, EDQUOT: self = .noSpace
        case ENOENT: self = .noSuchFile
        default: self = .system(errno: code)
        }
    }
}

/// Extended attributes of files (`getxattr`, `setxattr`, `removexattr`): the one place the
/// package calls into `sys/xattr.h`. Every call blocks on file I/O.
public enum ExtendedAttributes {
    /// The value of the attribute `name` (such as `user.example`) of the file at `path`.
    public static func value(named name: String, ofFileAt path: String) throws(ExtendedAttributeError) -> Data {
        // The value may grow between asking its size and reading it (another process writing):
        // ERANGE then, and the size is asked again.
        for _ in 0..<4 {
            let size = getxattr(path, name, nil, 0)
            guard size >= 0 else { throw ExtendedAttributeError(errno: errno) }
            var value = Data(count: size)
            let read = value.withUnsafeMutableBytes { getxattr(path, name, $0.baseAddress, $0.count) }
            if read >= 0 { return value.prefix(read) }
            if errno != ERANGE { throw ExtendedAttributeError(errno: errno) }
        }
        throw .system(errno: ERANGE)
    }

    /// Sets the attribute `name` of the file at `path` to `value`, replacing any value it had.
    public static func setValue(_ value: Data, named name: String, ofFileAt path: String) throws(ExtendedAttributeError) {
        let result = value.withUnsafeBytes { setxattr(path, name, $0.baseAddress, $0.count, 0) }
        guard result == 0 else { throw ExtendedAttributeError(errno: errno) }
    }

    /// Removes the attribute `name` of the file at `path`.
    public static func removeValue(named name: String, ofFileAt path: String) throws(ExtendedAttributeError) {
        guard removexattr(path, name) == 0 else { throw ExtendedAttributeError(errno: errno) }
    }
}
