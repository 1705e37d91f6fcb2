/// Waits until `condition` holds, checked at once and again on each element of `changes` (the
/// events that may make it hold: no polling), for at most `timeout` stretched by
/// `TestAllowance.timeScale`. True when it held; false when the time passed first, `changes`
/// ended without it, or the task was cancelled.
public func eventually<Event: Sendable>(
    within timeout: Duration, on changes: AsyncStream<Event>, _ condition: @escaping @Sendable () -> Bool
) async -> Bool {
    if condition() { return true }
    return await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            for await _ in changes where condition() { return true }
            return condition()
        }
        group.addTask {
            try? await Task.sleep(for: TestAllowance.time(timeout))
            return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
    }
}

/// Waits until `condition` holds where nothing announces its change (a gauge, a file's size, a
/// released object): checked at once, then every `interval`, for at most `timeout` stretched
/// by `TestAllowance.timeScale`. True when it held; false when the time passed first or the
/// task was cancelled. Where an event exists, await it instead (`TestGate`, `TestServer.wait`,
/// the form above).
public func eventually(
    within timeout: Duration, every interval: Duration = .milliseconds(5), isolation: isolated (any Actor)? = #isolation,
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + TestAllowance.time(timeout)
    while true {
        if try await condition() { return true }
        guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
        try? await Task.sleep(for: interval)
    }
}
