import Glibc
internal import ImageEngine
import Synchronization

/// The default memory tier of an `ImageCache`: `ObjectMemoryCache` holding images.
public typealias MemoryCache = ObjectMemoryCache<Image>

extension ObjectMemoryCache: MemoryCacheProtocol where Object == Image {}

/// Objects in memory by key: least-recently-used eviction under a cost and a count limit
/// (0 = unlimited), exact cost accounting, and an optional weak mirror that still finds an
/// evicted object while someone else holds it. `MemoryCache` is this cache of `Image`s, an
/// `ImageCache`'s memory tier; other objects (encoded results an image server keeps, say) use
/// the same cache.
///
/// Keys are spread over shards, each an `LRUStorage` behind its own lock, so threads reading
/// different keys do not queue on one lock; a lookup holds its shard's lock for a dictionary
/// access and one write, its entry's stamp. Every use stamps the entry with a monotonic clock, and
/// eviction removes the entry with the oldest stamp among the shards' least recent ones: the
/// least recently used entry of the whole cache. Evicted objects are released after the locks.
public final class ObjectMemoryCache<Object: AnyObject & Sendable>: Sendable {
    private struct WeakObject {
        weak var object: Object?
        let cost: Int
    }

    private struct Shard {
        var storage = LRUStorage<HashedKey, Object>()
        var weakMirror: [HashedKey: WeakObject] = [:]
        var lastStamp: UInt64 = 0

        /// Now on the monotonic clock, and never the same stamp twice in this shard.
        mutating func nextStamp() -> UInt64 {
            var time = timespec()
            clock_gettime(CLOCK_MONOTONIC, &time)
            lastStamp = max(UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec), lastStamp &+ 1)
            return lastStamp
        }
    }

    private final class ShardBox: Sendable {
        let state = Locked(Shard())
        /// At most the stamp of the shard's least recently used entry (`.max` when empty):
        /// written under the lock, read without it by eviction to pick the shard to look in.
        let oldestBound = Atomic<UInt64>(.max)
        /// Keeps the next shard's lock and reference count off this one's cache lines: two
        /// threads on two shards then never write to one line.
        private let padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)

        /// Runs `body` under the lock and publishes the new `oldestBound` before the lock is
        /// released. Every access goes through it: a lookup can put an object back from the weak
        /// mirror, and the store is a plain write to a line the lock already holds.
        func changing<Result>(_ body: (inout Shard) -> Result) -> Result {
            state.withLock { shard in
                let result = body(&shard)
                oldestBound.store(shard.storage.oldestStampBound ?? .max, ordering: .relaxed)
                return result
            }
        }
    }

    /// Enough that two threads rarely meet on one lock: a wait costs a futex call, many times a
    /// hit. With 8, two threads got 1.54x one thread's hits; with 64, 1.75x (docs/cache.md).
    private static var shardCount: Int { 64 }

    /// The most total cost held after any store returns; 0 = unlimited.
    public let costLimit: Int
    /// The most objects held after any store returns; 0 = unlimited.
    public let countLimit: Int
    /// True when evicted objects stay reachable through weak references.
    public let usesWeakMirror: Bool

    private let shards: [ShardBox] = (0..<ObjectMemoryCache.shardCount).map { _ in ShardBox() }
    /// Sums over the shards, changed under the shard lock that changes the shard.
    private let costSum = Atomic(0)
    private let countSum = Atomic(0)
    /// One evictor at a time, so two never pick the same victim.
    private let evictionLock = Locked(())

    /// A cache with `config`'s `maxMemoryCost`, `maxMemoryCount` and `shouldUseWeakMemoryCache`.
    public convenience init(config: ImageCacheConfig) {
        self.init(
            costLimit: config.maxMemoryCost, countLimit: config.maxMemoryCount,
            usesWeakMirror: config.shouldUseWeakMemoryCache
        )
    }

    /// A cache with the given limits (0 = unlimited).
    public init(costLimit: Int = 0, countLimit: Int = 0, usesWeakMirror: Bool = false) {
        self.costLimit = max(0, costLimit)
        self.countLimit = max(0, countLimit)
        self.usesWeakMirror = usesWeakMirror
    }

    public func object(forKey key: String) -> Object? {
        let key = HashedKey(key)
        let (object, restored) = shard(for: key).changing { shard -> (Object?, Bool) in
            if let object = shard.storage.value(forKey: key, stamp: shard.nextStamp()) { return (object, false) }
            guard usesWeakMirror, let entry = shard.weakMirror[key] else { return (nil, false) }
            guard let object = entry.object else {
                shard.weakMirror[key] = nil
                return (nil, false)
            }
            // Someone still holds the object: put it back in the strong tier (the key is not in
            // it, so nothing is replaced).
            _ = insert(object, forKey: key, cost: entry.cost, into: &shard)
            return (object, true)
        }
        if restored { evictToLimits() }
        return object
    }

    public func setObject(_ object: Object, forKey key: String, cost: Int) {
        let key = HashedKey(key)
        let cost = max(0, cost)
        let replaced = shard(for: key).changing { shard in
            if usesWeakMirror {
                shard.weakMirror[key] = WeakObject(object: object, cost: cost)
                pruneWeakMirror(&shard)
            }
            return insert(object, forKey: key, cost: cost, into: &shard)
        }
        withExtendedLifetime(replaced) {}
        evictToLimits()
    }

    public func removeObject(forKey key: String) {
        let key = HashedKey(key)
        let removed = shard(for: key).changing { shard in
            shard.weakMirror[key] = nil
            return remove(key, from: &shard)
        }
        withExtendedLifetime(removed) {}
    }

    /// Removes every object, from the weak mirror too.
    public func removeAllObjects() {
        for box in shards {
            let removed = box.changing { shard in
                shard.weakMirror.removeAll()
                costSum.subtract(shard.storage.totalCost, ordering: .relaxed)
                countSum.subtract(shard.storage.count, ordering: .relaxed)
                return shard.storage.removeAll()
            }
            withExtendedLifetime(removed) {}
        }
    }

    /// Evicts least recently used objects until the total cost is at most `cost`. The weak mirror
    /// keeps them reachable while held elsewhere (what a memory-pressure trim wants).
    public func trim(toCost cost: Int) {
        evict(toCost: max(0, cost), toCount: Int.max)
    }

    /// Evicts least recently used objects until at most `count` remain.
    public func trim(toCount count: Int) {
        evict(toCost: Int.max, toCount: max(0, count))
    }

    public var totalCost: Int { costSum.load(ordering: .relaxed) }

    public var count: Int { countSum.load(ordering: .relaxed) }

    // MARK: Shards

    private func shard(for key: HashedKey) -> ShardBox {
        shards[Int(UInt(bitPattern: key.hash) % UInt(Self.shardCount))]
    }

    /// Inserts into `shard` unless the cost alone exceeds the limit; returns the object replaced
    /// or dropped, to be released after the lock.
    private func insert(_ object: Object, forKey key: HashedKey, cost: Int, into shard: inout Shard) -> Object? {
        guard costLimit == 0 || cost <= costLimit else {
            // Larger than the whole cache: never held strongly (only the weak mirror may keep it).
            return remove(key, from: &shard)
        }
        let (costBefore, countBefore) = (shard.storage.totalCost, shard.storage.count)
        let replaced = shard.storage.set(object, forKey: key, cost: cost, stamp: shard.nextStamp())
        costSum.add(shard.storage.totalCost - costBefore, ordering: .relaxed)
        countSum.add(shard.storage.count - countBefore, ordering: .relaxed)
        return replaced
    }

    private func remove(_ key: HashedKey, from shard: inout Shard) -> Object? {
        let before = shard.storage.totalCost
        guard let removed = shard.storage.removeValue(forKey: key) else { return nil }
        costSum.subtract(before - shard.storage.totalCost, ordering: .relaxed)
        countSum.subtract(1, ordering: .relaxed)
        return removed
    }

    private func evictToLimits() {
        let cost = costLimit == 0 ? Int.max : costLimit
        let count = countLimit == 0 ? Int.max : countLimit
        guard totalCost > cost || self.count > count else { return }
        evict(toCost: cost, toCount: count)
    }

    /// Removes the least recently used object of the whole cache until within both bounds. The
    /// shard with the lowest bound is looked in; its oldest entry is the oldest of all when no
    /// other shard's bound is below it, else its bound is now exact and the next is tried.
    private func evict(toCost cost: Int, toCount count: Int) {
        var evicted: [Object] = []
        evictionLock.withLock { _ in
            while totalCost > cost || self.count > count {
                guard let candidate = shards.min(by: { $0.oldestBound.load(ordering: .relaxed) < $1.oldestBound.load(ordering: .relaxed) }),
                      candidate.oldestBound.load(ordering: .relaxed) != .max
                else { break }
                let object = candidate.changing { shard -> Object? in
                    guard let oldest = shard.storage.oldestStamp() else { return nil }
                    let isOldest = shards.allSatisfy { $0 === candidate || $0.oldestBound.load(ordering: .relaxed) >= oldest }
                    guard isOldest else { return nil }
                    let before = shard.storage.totalCost
                    let object = shard.storage.removeLeastRecentlyUsed()
                    costSum.subtract(before - shard.storage.totalCost, ordering: .relaxed)
                    countSum.subtract(1, ordering: .relaxed)
                    return object
                }
                if let object { evicted.append(object) }
            }
        }
        withExtendedLifetime(evicted) {}
    }

    /// Drops the weak mirror's dead entries once it outgrows the shard's strong entries.
    private func pruneWeakMirror(_ shard: inout Shard) {
        guard shard.weakMirror.count > 2 * shard.storage.count + 64 else { return }
        shard.weakMirror = shard.weakMirror.filter { $0.value.object != nil }
    }
}
