import NIOPosix

/// The threads the stores read and write the disk on, apart from `BlockingPool`, whose threads
/// (as many as the cores) process images: a store waits on the disk (a source is flushed to the
/// device), and made in a `BlockingPool` thread, that wait left a core idle while images queued
/// for a thread. The server owns them and ends them at its service's stop (`shutdown()`); one
/// never stopped so ends them when it is released, without waiting.
final class DiskThreads: Sendable {
    private let pool: NIOThreadPool

    init(count: Int = 4) {
        pool = NIOThreadPool(numberOfThreads: count)
        pool.start()
    }

    deinit {
        pool.shutdownGracefully { _ in }
    }

    /// Runs `body` on the threads and returns its result to the awaiting task; throws once they
    /// are shut down.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.runIfActive(body)
    }

    /// Ends the threads, once the work they hold has run.
    func shutdown() async {
        try? await pool.shutdownGracefully()
    }
}
