import Testing
import WebImageTestSupport

/// The suites that load the machine on purpose: thousands of connections, decode bombs, child
/// processes that take every core, sources of hundreds of megabytes, peaks of resident memory.
/// Nested here, their IDs read `…Heavy/…`: the README's test command (`scripts/test.sh`) runs
/// them after the rest, one at a time, where they cannot take the cores from the tests that
/// wait for an event; and in a plain `swift test` they at least run one at a time.
@Suite(.offThePool, .serialized) enum Heavy {}
