/// Runs `body` with `resource`, then awaits `release(resource)`, also when `body` throws: what a
/// test started (a server, an origin) is stopped before the test ends, not by a task left behind.
public func withScoped<Resource: Sendable, T>(
    _ resource: Resource, release: (Resource) async -> Void, isolation: isolated (any Actor)? = #isolation,
    _ body: (Resource) async throws -> T
) async throws -> T {
    let result: T
    do {
        result = try await body(resource)
    } catch {
        await release(resource)
        throw error
    }
    await release(resource)
    return result
}

/// Runs `body` with a fresh test server as the origin (HTTPS with `tls`, on loopback
/// `addresses`), then awaits its shutdown, also when `body` throws.
public func withOrigin<T>(
    tls: Bool = false, addresses: [String] = ["127.0.0.1"], isolation: isolated (any Actor)? = #isolation,
    _ body: (TestServer) async throws -> T
) async throws -> T {
    try await withScoped(try await TestServer.start(tls: tls, addresses: addresses), release: { await $0.shutdown() }, body)
}

/// Runs `body` with a raw origin sending `reply`, then awaits its shutdown, also when `body` throws.
public func withRawOrigin<T>(
    _ reply: RawOrigin.Reply, isolation: isolated (any Actor)? = #isolation, _ body: (RawOrigin) async throws -> T
) async throws -> T {
    try await withScoped(try await RawOrigin.start(reply), release: { await $0.shutdown() }, body)
}
