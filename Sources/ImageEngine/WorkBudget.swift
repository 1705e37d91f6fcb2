import CLibvips
import CVipsGlue

/// A decode's time budget: the CPU time the pipelines it is attached to (`budgeted(by:)`) take
/// to compute their pixels, shared by all of them (an animation's frames), and a stop once it
/// is spent: every region asked for afterwards fails (`VipsError.isOverTimeBudget`). A region
/// already being computed runs to its end.
///
/// `@unchecked Sendable`: the C budget's fields are atomics, and its limit is set once.
public final class WorkBudget: @unchecked Sendable {
    let pointer: OpaquePointer
    /// The CPU time allowed.
    public let limit: Duration

    public init(limit: Duration) {
        self.limit = limit
        let (seconds, attoseconds) = limit.components
        let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        pointer = wi_budget_new(nanoseconds >= Double(Int64.max) ? .max : Int64(max(0, nanoseconds)))
        if let watch = wi_budget_watch_get() { Unmanaged<BudgetWatch>.fromOpaque(watch).takeUnretainedValue().budgets.append(self) }
    }

    /// Runs `body`; when it fails while a budget made in this thread during it is spent, the
    /// failure says it is that budget's stop. libvips' error buffer is the process's: another
    /// thread's failure read in between can take the stop's message out of it, leaving this one
    /// only what came after ("TIFF: cannot compute pixels"), a stop then read as corrupt data.
    public static func attributingStops<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        let watch = BudgetWatch()
        let outer = wi_budget_watch_get()
        wi_budget_watch_set(Unmanaged.passUnretained(watch).toOpaque())
        defer {
            wi_budget_watch_set(outer)
            // An enclosing watch sees the budgets made inside this one too.
            if let outer { Unmanaged<BudgetWatch>.fromOpaque(outer).takeUnretainedValue().budgets += watch.budgets }
        }
        return try withExtendedLifetime(watch) { () throws(E) -> R in
            do throws(E) {
                return try body()
            } catch {
                guard let failure = error as? VipsError, !failure.isOverTimeBudget,
                      let spent = watch.budgets.first(where: \.isSpent),
                      let stop = VipsError("\(WI_BUDGET_DOMAIN): over the time budget of \(spent.limit) of CPU time; \(failure.message)") as? E
                else { throw error }
                throw stop
            }
        }
    }

    deinit {
        wi_budget_unref(pointer)
    }

    /// True once the work counted passed the limit (the calling thread's own so far included,
    /// inside `counting`).
    public var isSpent: Bool { wi_budget_checkpoint(pointer) != 0 }

    /// The CPU time counted so far.
    public var used: Duration { .nanoseconds(wi_budget_used_ns(pointer)) }

    /// Runs `body`, counting the CPU time it takes in this thread outside the budget's images
    /// (which count their own): for work between pipelines, such as drawing an animation's
    /// frames on its canvas. It is counted as it goes, at each region the budget's images
    /// compute in this thread and at each `check()`, so that a budget spent midway through
    /// such work stops it at the next region (a 100 MP canvas drawn row by row), not at its end.
    public func counting<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        let previous = wi_budget_counting_begin(pointer)
        defer { wi_budget_counting_end(previous) }
        return try body()
    }

    /// The CPU time the calling thread has used so far.
    public static var threadCPUTime: Duration { .nanoseconds(wi_thread_cpu_ns()) }

    /// The error a spent budget stops work with.
    public var stop: VipsError { VipsError("\(WI_BUDGET_DOMAIN): over the time budget of \(limit) of CPU time") }

    /// Throws the error a spent budget stops a pipeline with, once it is spent: for work
    /// between pipelines (an animation's next frame).
    public func check() throws(VipsError) {
        if isSpent { throw stop }
    }

    /// Runs `body` as `counting` does, for work that a spent budget stops midway (a decoder or
    /// kernel that asks it as it goes, `wi_budget_poll`), which then says only that it failed: a
    /// failure once the budget is spent is the budget's stop.
    public func stopping<R>(_ body: () throws(VipsError) -> R) throws(VipsError) -> R {
        do {
            return try counting(body)
        } catch {
            if !error.isOverTimeBudget, isSpent { throw VipsError("\(stop.message); \(error.message)") }
            throw error
        }
    }
}

/// The budgets one thread made while it watched (`attributingStops`). Only that thread reads
/// or writes it.
private final class BudgetWatch {
    var budgets: [WorkBudget] = []
}

extension VipsImageRef {
    /// This image as it is, its pixels computed under `budget`.
    public func budgeted(by budget: WorkBudget) throws(VipsError) -> VipsImageRef {
        guard let result = wi_budget_lazy(pointer, budget.pointer) else {
            throw Vips.lastError(or: "cannot set a time budget")
        }
        return VipsImageRef(result)
    }
}

extension VipsError {
    /// True when the work was stopped by a spent `WorkBudget` (its message names the budget;
    /// libvips' error buffer is shared by the process, so under concurrency another thread's
    /// stop could show in this message too).
    public var isOverTimeBudget: Bool { message.contains(WI_BUDGET_DOMAIN + ": ") }
}
