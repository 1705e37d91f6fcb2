import Foundation
import Logging
import Synchronization
internal import ImageEngine

/// A debug check for blocking work on the Swift cooperative pool, whose threads (as many as the
/// cores) run every task: one of them waiting on a file or a decode takes a core's share of the
/// process. The library's blocking entry points (the disk cache's file I/O, rendering a lazy
/// image's pixels, Foundation's cookie storage) call `note`; with `WEBIMAGE_CHECK_BLOCKING=1`
/// in the environment, a call made on a thread that is running a task is reported once per call
/// site, as a warning on the `swift-webimage.blocking` logger. Threads of `BlockingPool`, of
/// other thread pools, `Thread`s and `DispatchQueue` workers run no task and are never reported.
///
/// What it cannot see: C called directly, a library's own I/O, and a blocking call no entry
/// point notes. A task on an executor of its own (an actor on a custom executor) is reported as
/// if it ran on the pool.
package enum BlockingCheck {
    /// One blocking call made on a task's thread.
    package struct Report: Sendable {
        /// The noting function and its place: `read(_:touchAccessDate:) (WebImage/CacheFile.swift:21)`.
        package let site: String
        /// What it blocked on (a path, an image), for telling one call from another.
        package let detail: String
    }

    private struct Observers {
        var next = 0
        var byID: [Int: @Sendable (Report) -> Void] = [:]
        /// The sites already logged.
        var logged: Set<String> = []
    }

    private static let fromEnvironment = ProcessInfo.processInfo.environment["WEBIMAGE_CHECK_BLOCKING"] == "1"
    /// On with the environment variable or while anything observes: the one load `note` makes when off.
    private static let isOn = Atomic<Bool>(fromEnvironment)
    private static let observers = Locked(Observers())
    private static let logger = Logger(label: "swift-webimage.blocking")

    /// Reports this call when the check is on and the calling thread runs a task. Call it first
    /// thing in a function that blocks; `detail` is evaluated only for a report.
    @inline(__always)
    package static func note(
        _ detail: @autoclosure () -> String = "", function: StaticString = #function, fileID: StaticString = #fileID, line: UInt = #line
    ) {
        guard isOn.load(ordering: .relaxed) else { return }
        guard withUnsafeCurrentTask(body: { $0 != nil }) else { return }
        report(Report(site: "\(function) (\(fileID):\(line))", detail: detail()))
    }

    /// Runs `body` with the check on, `observer` receiving every report made meanwhile (by any
    /// task of the process, each call, not only a site's first): tests see what a call reports.
    package static func observing<T>(
        _ observer: @escaping @Sendable (Report) -> Void, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async rethrows -> T {
        let id = observers.withLock { observers in
            defer { observers.next += 1 }
            observers.byID[observers.next] = observer
            isOn.store(true, ordering: .relaxed)
            return observers.next
        }
        defer {
            observers.withLock { observers in
                observers.byID[id] = nil
                isOn.store(fromEnvironment || !observers.byID.isEmpty, ordering: .relaxed)
            }
        }
        return try await body()
    }

    private static func report(_ report: Report) {
        let (observing, firstOfSite) = observers.withLock { observers in
            (Array(observers.byID.values), fromEnvironment && observers.logged.insert(report.site).inserted)
        }
        for observer in observing { observer(report) }
        guard firstOfSite else { return }
        // Addresses on Linux (no symbols): the frames after this one and `note` are the caller's.
        let stack = Thread.callStackSymbols.dropFirst(1).prefix(16).joined(separator: " | ")
        let priority = withUnsafeCurrentTask { $0.map { "\($0.priority)" } } ?? "none"
        logger.warning("blocking work on a task's thread (the cooperative pool): run it in BlockingPool.run", metadata: [
            "site": "\(report.site)", "detail": "\(report.detail)", "task": "present", "task_priority": "\(priority)",
            "stack": "\(stack)",
        ])
    }
}
