internal import ImageEngine

/// Where an `AnimatedImagePlayer` decodes frames ahead of time.
public struct FrameDecodeExecutor: Sendable {
    let submit: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// Runs each job by `submit` (which may run it at once, or later on any thread).
    public init(_ submit: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.submit = submit
    }

    /// The blocking thread pool (the default): frames decode while the player shows others.
    public static let background = FrameDecodeExecutor { Vips.runInBackground($0) }

    /// In the thread that asks, before the player's tick returns: every frame is ready when due,
    /// so which frame shows depends on time alone (for tests).
    public static let inline = FrameDecodeExecutor { $0() }
}
