import Dispatch
import Testing
import WebImageTestServer
@testable import WebImageServerCore
import WebImageTestSupport

/// `/health`'s check: 200 while the engine encodes; 503 when the check has not ended within its
/// time, answered then, though the check's thread is still held by it.
@Suite(.offThePool) struct HealthCheckTests {
    @Test func anEngineThatEncodesIsHealthy() async {
        let check = HealthCheck()
        let response = await check.response()
        #expect(response.head.status == .ok && String(buffer: response.body) == "OK")
        await check.shutdown()
    }

    /// A check that hangs (an encode stuck in the engine): the answer is 503 at the check's
    /// timeout, and so is the next one, queued behind it on the check's thread; once it ends,
    /// the thread is free and shuts down.
    @Test(.timeLimit(.minutes(TestAllowance.minutes(1)))) func aCheckThatHangsIsUnhealthyAtItsTimeout() async {
        let started = TestGate()
        let hung = DispatchSemaphore(value: 0)
        let check = HealthCheck(timeout: .milliseconds(50)) {
            started.open()
            hung.wait()
            return true
        }
        let first = await check.response()
        #expect(first.head.status == .serviceUnavailable && String(buffer: first.body) == "unhealthy")
        await started.wait()
        #expect(await check.passes() == false)
        hung.signal()
        hung.signal()
        await check.shutdown()
    }
}
