internal import ImageEngine

/// Where blocking work (decode, encode, disk I/O) runs when called from async code: a thread
/// pool sized to the machine's cores, so that the Swift cooperative pool never blocks on it.
/// The coders' methods are synchronous; wrap them: `try await BlockingPool.run { try coder.decode(data, options: options) }`.
public enum BlockingPool {
    /// Runs `body` on the blocking pool and returns its result to the awaiting task.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await Vips.runBlocking(body)
    }
}
