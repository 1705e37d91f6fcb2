/// Thrown by `RequestWatches.run` for a request when its time (`TIMEOUT`) ran out.
struct TimeoutError: Error {}
