extension Vips {
    /// Runs `body` on `blockingPool` without waiting for it: for work whose result the caller
    /// picks up by itself (an animation player decoding frames ahead).
    public static func runInBackground(_ body: @escaping @Sendable () -> Void) {
        blockingPool.submit { _ in body() }
    }
}
