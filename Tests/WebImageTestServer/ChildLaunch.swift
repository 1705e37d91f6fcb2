import Foundation

/// Starts the tests' child processes one at a time.
///
/// Foundation's `Process.run` on Linux keeps the parent's descriptors out of the child by listing
/// the open ones (/proc/self/fd) and closing each in the child; its pipes are made without
/// `O_CLOEXEC`. A pipe or file another thread opens between that listing and the spawn is
/// inherited: a child holding another's standard input keeps that one from its end of file, and
/// one holding another's standard output or `Process`'s exit socket keeps the reader (or
/// `waitUntilExit`) waiting until it ends too. Measured: of 800 children started from 8
/// threads, 290 held descriptors of the others. So every test that opens the pipes or files of a
/// child and starts it does both inside `serialized`, and no launch lists descriptors while
/// another opens its own. (The library's own child, the renderer, closes every inherited
/// descriptor: child_process.c.)
public enum ChildLaunch {
    // NSLock, a pthread mutex: ThreadSanitizer sees it (Locked's `sending` result would not take a Process).
    private static let lock = NSLock()

    /// Runs `body` (which opens a child's pipes and files and calls `run()`) while no other test
    /// does the same.
    public static func serialized<Result>(_ body: () throws -> Result) rethrows -> Result {
        try lock.withLock(body)
    }
}
