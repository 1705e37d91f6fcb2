import Testing
import WebImageTestSupport

/// The suites that load the machine on purpose: thousands of connections, decode bombs, child
/// processes that take every core, sources of hundreds of megabytes, peaks of resident memory.
/// Nested here, their IDs read `…Heavy/…`: the README's test command (`scripts/test.sh`) runs
/// them after the rest, one test at a time, where they cannot take the cores from the tests that
/// wait for an event; in a plain `swift test` they run one at a time within each test target.
@Suite(.offThePool, .serialized) enum Heavy {}
