#if WEBIMAGE_TSAN
import Glibc
#else
import Synchronization
#endif

/// A value behind a lock, with `Synchronization.Mutex`'s `withLock`, that ThreadSanitizer sees.
///
/// Swift 6.3's `Mutex` on Linux locks through futex calls that TSan does not see, so every
/// access made under it is reported as a race. Built with `-DWEBIMAGE_TSAN` (as
/// scripts/tsan-check.sh builds the suite under `--sanitize=thread`), the lock is a pthread
/// mutex, which TSan sees: a report is then a real race. Other builds use `Mutex`, 7 – 13% faster
/// for a lock around a dictionary lookup (`webimage-benchmark cache`).
public struct Locked<State>: ~Copyable {
    #if WEBIMAGE_TSAN
    // The mutex is the buffer's header and the value its one element: ManagedBuffer's accessors
    // touch the header on every call, which TSan counts as an access, so the value must not be
    // the header (its accesses under the lock would race with those, made before the lock).
    @usableFromInline
    final class Storage: ManagedBuffer<pthread_mutex_t, State> {
        deinit {
            withUnsafeMutablePointers { mutex, state in
                _ = state.deinitialize(count: 1)
                _ = pthread_mutex_destroy(mutex)
            }
        }
    }

    @usableFromInline
    let storage: Storage

    @inlinable
    public init(_ initialState: sending State) {
        let buffer = Storage.create(minimumCapacity: 1) { _ in pthread_mutex_t() }
        // `create` returns its receiver's class, typed as the base class.
        storage = unsafeDowncast(buffer, to: Storage.self)
        storage.withUnsafeMutablePointers { mutex, state in
            _ = pthread_mutex_init(mutex, nil)
            state.initialize(to: initialState)
        }
    }

    /// Runs `body` with the value, holding the lock (inlinable, so that it is specialized
    /// where it is used, as `Mutex`'s is).
    @inlinable
    public borrowing func withLock<Result, Failure: Error>(
        _ body: (inout sending State) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        // The pointers stay valid while `storage` lives, which `self` ensures for this call; the
        // value they reach is touched only under the mutex (what `sending` cannot see).
        nonisolated(unsafe) let state = storage.withUnsafeMutablePointerToElements { $0 }
        let mutex = storage.withUnsafeMutablePointerToHeader { $0 }
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state.pointee)
    }
    #else
    @usableFromInline
    let mutex: Mutex<State>

    @inlinable
    public init(_ initialState: sending State) {
        mutex = Mutex(initialState)
    }

    /// Runs `body` with the value, holding the lock (inlinable, so that it is specialized
    /// where it is used, as `Mutex`'s is).
    @inlinable
    public borrowing func withLock<Result, Failure: Error>(
        _ body: (inout sending State) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        try mutex.withLock(body)
    }
    #endif
}

// Safe to share: the value is read and written only inside `withLock`, under the lock.
extension Locked: @unchecked Sendable {}
