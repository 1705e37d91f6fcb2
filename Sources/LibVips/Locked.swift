import Glibc

/// A value behind a pthread mutex, with `Synchronization.Mutex`'s `withLock`.
///
/// Swift 6.3's `Mutex` on Linux locks through futex calls that ThreadSanitizer does not see, so
/// every access made under it is reported as a race; a pthread mutex is seen, so a report under
/// `swift test --sanitize=thread` is a real race (scripts/tsan-check.sh). Copies share one lock
/// and one value.
public struct Locked<State>: @unchecked Sendable {
    // Safe to share: the value is read and written only inside `withLock`, under the mutex.
    // The mutex is the buffer's header and the value its one element: ManagedBuffer's accessors
    // touch the header on every call, which TSan counts as an access, so the value must not be
    // the header (its accesses under the lock would race with those, made before the lock).
    private final class Storage: ManagedBuffer<pthread_mutex_t, State> {
        deinit {
            withUnsafeMutablePointers { mutex, state in
                _ = state.deinitialize(count: 1)
                _ = pthread_mutex_destroy(mutex)
            }
        }
    }

    private let storage: Storage

    public init(_ initialState: sending State) {
        let buffer = Storage.create(minimumCapacity: 1) { _ in pthread_mutex_t() }
        // `create` returns its receiver's class, typed as the base class.
        storage = unsafeDowncast(buffer, to: Storage.self)
        storage.withUnsafeMutablePointers { mutex, state in
            _ = pthread_mutex_init(mutex, nil)
            state.initialize(to: initialState)
        }
    }

    /// Runs `body` with the value, holding the lock.
    public func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try storage.withUnsafeMutablePointers { mutex, state throws(Failure) -> Result in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&state.pointee)
        }
    }
}
