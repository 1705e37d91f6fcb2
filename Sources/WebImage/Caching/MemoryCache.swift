import Synchronization

/// The default memory tier: least-recently-used eviction under a cost and a count limit
/// (0 = unlimited), exact cost accounting, and an optional weak mirror that still finds an
/// evicted image while someone else holds it. One `Mutex` guards the state; a lookup holds it
/// for a dictionary access and a few index writes. Evicted images are released after the lock.
public final class MemoryCache: MemoryCacheProtocol {
    private struct WeakImage {
        weak var image: Image?
        let cost: Int
    }

    private struct State {
        var storage = LRUStorage<Image>()
        var weakMirror: [String: WeakImage] = [:]
    }

    /// The most total cost held after any store returns; 0 = unlimited.
    public let costLimit: Int
    /// The most images held after any store returns; 0 = unlimited.
    public let countLimit: Int
    /// True when evicted images stay reachable through weak references.
    public let usesWeakMirror: Bool
    private let state = Mutex(State())

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

    public func object(forKey key: String) -> Image? {
        let (image, evicted) = state.withLock { state -> (Image?, [Image]) in
            if let image = state.storage.value(forKey: key) { return (image, []) }
            guard usesWeakMirror, let entry = state.weakMirror[key] else { return (nil, []) }
            guard let image = entry.image else {
                state.weakMirror[key] = nil
                return (nil, [])
            }
            // Someone still holds the image: put it back in the strong tier.
            return (image, insert(image, forKey: key, cost: entry.cost, into: &state))
        }
        withExtendedLifetime(evicted) {}
        return image
    }

    public func setObject(_ object: Image, forKey key: String, cost: Int) {
        let cost = max(0, cost)
        let evicted = state.withLock { state in
            if usesWeakMirror {
                state.weakMirror[key] = WeakImage(image: object, cost: cost)
                pruneWeakMirror(&state)
            }
            return insert(object, forKey: key, cost: cost, into: &state)
        }
        withExtendedLifetime(evicted) {}
    }

    public func removeObject(forKey key: String) {
        let removed = state.withLock { state in
            state.weakMirror[key] = nil
            return state.storage.removeValue(forKey: key)
        }
        withExtendedLifetime(removed) {}
    }

    /// Removes every image, from the weak mirror too.
    public func removeAllObjects() {
        let removed = state.withLock { state in
            state.weakMirror.removeAll()
            return state.storage.removeAll()
        }
        withExtendedLifetime(removed) {}
    }

    /// Evicts least recently used images until the total cost is at most `cost`. The weak mirror
    /// keeps them reachable while held elsewhere (what a memory-pressure trim wants).
    public func trim(toCost cost: Int) {
        let evicted = state.withLock { state in evict(&state, toCost: max(0, cost), toCount: Int.max) }
        withExtendedLifetime(evicted) {}
    }

    /// Evicts least recently used images until at most `count` remain.
    public func trim(toCount count: Int) {
        let evicted = state.withLock { state in evict(&state, toCost: Int.max, toCount: max(0, count)) }
        withExtendedLifetime(evicted) {}
    }

    public var totalCost: Int { state.withLock { $0.storage.totalCost } }

    public var count: Int { state.withLock { $0.storage.count } }

    private func insert(_ image: Image, forKey key: String, cost: Int, into state: inout State) -> [Image] {
        guard costLimit == 0 || cost <= costLimit else {
            // Larger than the whole cache: never held strongly (only the weak mirror may keep it).
            return state.storage.removeValue(forKey: key).map { [$0] } ?? []
        }
        var evicted: [Image] = []
        if let replaced = state.storage.set(image, forKey: key, cost: cost) { evicted.append(replaced) }
        evicted += evict(
            &state, toCost: costLimit == 0 ? Int.max : costLimit, toCount: countLimit == 0 ? Int.max : countLimit
        )
        return evicted
    }

    private func evict(_ state: inout State, toCost cost: Int, toCount count: Int) -> [Image] {
        var evicted: [Image] = []
        while state.storage.totalCost > cost || state.storage.count > count,
              let image = state.storage.removeLeastRecentlyUsed() {
            evicted.append(image)
        }
        return evicted
    }

    /// Drops the weak mirror's dead entries once it outgrows the strong tier.
    private func pruneWeakMirror(_ state: inout State) {
        guard state.weakMirror.count > 2 * state.storage.count + 256 else { return }
        state.weakMirror = state.weakMirror.filter { $0.value.image != nil }
    }
}
