// Built by scripts/tsan-check.sh with Sources/WebImageSupport/Locked.swift under -sanitize=thread and
// -DWEBIMAGE_TSAN, to show that ThreadSanitizer sees `Locked`'s lock and still reports a real race
// next to it.
// Two threads add 10,000 keys each to one dictionary:
//   locked   both under `Locked`: no report expected
//   racy     one under `Locked`, one without the lock, on a counter: reports expected (a real
//            race; on a counter, so that it cannot corrupt a dictionary into an endless probe,
//            which made this mode hang once in a while)
//   mutex    both under Synchronization.Mutex: reports expected on Linux (TSan does not see its futex)
// and two orders that Swift's runtime keeps with atomics of its own, built without ThreadSanitizer,
// so that TSan reports them although they are ordered (tsan-suppressions.txt skips where they
// occur in code not ours):
//   continuation  a task resumed from another thread, often before it reached its await: reports
//                 between `withUnsafeThrowingContinuation` and `UnsafeContinuation.resume`
//                 (swiftlang/swift#57803), on the cooperative pool, no executor of ours involved
//   refcount      an object read by a thread that then drops its reference, and written by one
//                 that waited until `isKnownUniquelyReferenced` said its reference was the last
//                 (as SwiftNIO's pooled receive buffers are reused): reports between the read
//                 and the write, which the reference count orders
import Foundation
import Synchronization

final class MutexBox: Sendable {
    let state = Mutex<[Int: Int]>([:])
}

let mode = CommandLine.arguments.dropFirst().first ?? "locked"
let locked = Locked<[Int: Int]>([:])
let mutex = MutexBox()
// The racy mode's unlocked path reaches the counter behind `Locked`'s back on purpose.
nonisolated(unsafe) var unlocked = 0

func work(thread: Int) {
    for i in 0..<10_000 {
        let key = thread * 100_000 + i
        switch mode {
        case "mutex": mutex.state.withLock { $0[key] = i }
        case "racy" where thread == 1: unlocked += 1
        case "racy": locked.withLock { _ in unlocked += 1 }
        default: locked.withLock { $0[key] = i }
        }
    }
}

if mode == "continuation" {
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        var sum = 0
        for i in 0..<500 {
            sum += try await withUnsafeThrowingContinuation { continuation in
                Thread.detachNewThread { continuation.resume(returning: i) }
            }
        }
        print("continuation: \(sum)")
        done.signal()
    }
    done.wait()
    exit(0)
}
if mode == "refcount" {
    final class Shared: @unchecked Sendable {
        var value = 1
    }
    var owned = Shared()
    // The reader's reference, handed over at its thread's start (an order TSan sees).
    let handed = Unmanaged.passRetained(owned)
    Thread.detachNewThread {
        let copy = handed.takeRetainedValue()
        if copy.value < 0 { print("never") }
    }
    while !isKnownUniquelyReferenced(&owned) {}
    owned.value = 2
    print("refcount: \(owned.value)")
    exit(0)
}

let finished = DispatchSemaphore(value: 0)
for index in 0..<2 {
    Thread.detachNewThread {
        work(thread: index)
        finished.signal()
    }
}
finished.wait()
finished.wait()
let count = locked.withLock { $0.count } + mutex.state.withLock { $0.count }
print("\(mode): \(count) keys, \(unlocked) unlocked additions")
