import NIOPosix

/// The threads the result and source stores read and write the disk on, apart from
/// `BlockingPool`, whose threads (as many as the cores) process images: a store waits on the
/// disk (a source is flushed to the device), and made in a `BlockingPool` thread, that wait
/// left a core idle while images queued for a thread.
enum CacheIO {
    private static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 4)
        pool.start()
        return pool
    }()

    /// Runs `body` on the stores' threads and returns its result to the awaiting task.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.runIfActive(body)
    }
}
