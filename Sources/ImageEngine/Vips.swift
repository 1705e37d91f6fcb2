import Foundation
import CLibvips
import CVipsGlue
import NIOCore
import NIOPosix

/// Process-wide libvips set-up and the threads that run blocking libvips work.
public enum Vips {
    /// Started once, on first use, before any other thread touches libvips.
    private static let startup: Result<Void, VipsError> = {
        // Before any pipeline compiles a liborc program (see LiborcLock).
        _ = liborcLock
        // One worker thread per pipeline: callers decode many images at once, and most codecs
        // are single-threaded anyway; parallelism comes from running several pipelines.
        if wi_init("swift-webimage", 1) != 0 {
            return .failure(lastError(or: "libvips failed to start"))
        }
        return .success(())
    }()

    /// Starts libvips if needed; throws when the library cannot start.
    public static func start() throws(VipsError) {
        try startup.get()
    }

    /// How liborc's code memory is kept consistent in this process: liborc before 0.4.34
    /// allocates and frees it without its lock, which crashes concurrent pipelines
    /// (Sources/CVipsGlue/orc_lock.c).
    public static let liborcLock: LiborcLock = {
        var version: UnsafePointer<CChar>?
        let mode = wi_orc_lock_install(&version)
        let text = version.map { String(cString: $0) } ?? ""
        switch mode {
        case WI_ORC_LOCKED_HERE: return .lockedHere(liborcVersion: text)
        case WI_ORC_LOCKED_BY_LIBORC: return .lockedByLiborc(liborcVersion: text)
        case WI_ORC_TURNED_OFF: return .turnedOff(liborcVersion: text)
        default: return .absent
        }
    }()

    /// The version of the libvips library in use, such as "8.14.1".
    public static var version: String {
        "\(vips_version(0)).\(vips_version(1)).\(vips_version(2))"
    }

    /// Threads reserved for blocking work (libvips, file I/O), sized to the machine's cores,
    /// so that the Swift cooperative pool never blocks on a decode.
    public static let blockingPool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: max(2, System.coreCount))
        pool.start()
        return pool
    }()

    /// Runs `body` on `blockingPool` and returns its result to the awaiting task.
    public static func runBlocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await blockingPool.runIfActive(body)
    }

    /// Reads and clears libvips' error buffer. Call it right after the failing call: the buffer
    /// is shared by the process, so under concurrency it may also hold other threads' messages.
    static func lastError(or fallback: String) -> VipsError {
        guard let text = wi_error_copy() else { return VipsError(fallback) }
        defer { g_free(text) }
        // libvips writes one line per layer ("VipsJpeg: Premature end ...\nVipsJpeg: ..."): one
        // line reads better in logs and terminals.
        let message = String(cString: text).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: "; ")
        return VipsError(message.isEmpty ? fallback : message)
    }
}
