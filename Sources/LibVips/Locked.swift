import Glibc

/// A value behind a pthread mutex, with `Synchronization.Mutex`'s `withLock`.
///
/// Swift 6.3's `Mutex` on Linux locks through futex calls that ThreadSanitizer does not see, so
/// every access made under it is reported as a race; a pthread mutex is seen, so a report under
/// `swift test --sanitize=thread` is a real race (scripts/tsan-check.sh). Copies share one lock
/// and one value.
public struct Locked<State>: @unchecked Sendable {
    // Safe to share: the value is read and written only inside `withLock`, under the mutex.
    private final class Storage: ManagedBuffer<State, pthread_mutex_t> {
        deinit {
            withUnsafeMutablePointerToElements { _ = pthread_mutex_destroy($0) }
        }
    }

    private let storage: Storage

    public init(_ initialState: sending State) {
        let buffer = Storage.create(minimumCapacity: 1) { _ in initialState }
        // `create` returns its receiver's class, typed as the base class.
        storage = unsafeDowncast(buffer, to: Storage.self)
        storage.withUnsafeMutablePointerToElements { _ = pthread_mutex_init($0, nil) }
    }

    /// Runs `body` with the value, holding the lock.
    public func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try storage.withUnsafeMutablePointers { state, mutex throws(Failure) -> Result in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&state.pointee)
        }
    }
}
