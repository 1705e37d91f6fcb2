import Dispatch
import Foundation
internal import ImageEngine
import Synchronization

/// An ordered list of caches that is itself a cache: SDWebImage's `SDImageCachesManager`.
/// The cache added last has the highest priority; each kind of operation has its policy.
public final class ImageCachesManager: ImageCacheProtocol {
    /// A manager over `ImageCache.shared`.
    public static let shared = ImageCachesManager()

    private struct State {
        var caches: [any ImageCacheProtocol]
        var queryOperationPolicy = ImageCachesManagerOperationPolicy.serial
        var storeOperationPolicy = ImageCachesManagerOperationPolicy.highestOnly
        var removeOperationPolicy = ImageCachesManagerOperationPolicy.concurrent
        var containsOperationPolicy = ImageCachesManagerOperationPolicy.serial
        var clearOperationPolicy = ImageCachesManagerOperationPolicy.concurrent
    }

    private let state: Locked<State>

    /// A manager over `caches`, lowest priority first.
    public init(caches: [any ImageCacheProtocol] = [ImageCache.shared]) {
        state = Locked(State(caches: caches))
    }

    /// The caches, lowest priority first.
    public var caches: [any ImageCacheProtocol] {
        get { state.withLock { $0.caches } }
        set { state.withLock { $0.caches = newValue } }
    }

    /// Adds `cache` with the highest priority.
    public func addCache(_ cache: any ImageCacheProtocol) {
        state.withLock { $0.caches.append(cache) }
    }

    /// Removes `cache` (the same instance).
    public func removeCache(_ cache: any ImageCacheProtocol) {
        let target = cache as AnyObject
        state.withLock { $0.caches.removeAll { ($0 as AnyObject) === target } }
    }

    /// How queries run (default `.serial`).
    public var queryOperationPolicy: ImageCachesManagerOperationPolicy {
        get { state.withLock { $0.queryOperationPolicy } }
        set { state.withLock { $0.queryOperationPolicy = newValue } }
    }

    /// How stores run (default `.highestOnly`).
    public var storeOperationPolicy: ImageCachesManagerOperationPolicy {
        get { state.withLock { $0.storeOperationPolicy } }
        set { state.withLock { $0.storeOperationPolicy = newValue } }
    }

    /// How removals run (default `.concurrent`).
    public var removeOperationPolicy: ImageCachesManagerOperationPolicy {
        get { state.withLock { $0.removeOperationPolicy } }
        set { state.withLock { $0.removeOperationPolicy = newValue } }
    }

    /// How lookups run (default `.serial`).
    public var containsOperationPolicy: ImageCachesManagerOperationPolicy {
        get { state.withLock { $0.containsOperationPolicy } }
        set { state.withLock { $0.containsOperationPolicy = newValue } }
    }

    /// How clears run (default `.concurrent`).
    public var clearOperationPolicy: ImageCachesManagerOperationPolicy {
        get { state.withLock { $0.clearOperationPolicy } }
        set { state.withLock { $0.clearOperationPolicy = newValue } }
    }

    // MARK: ImageCacheProtocol

    @discardableResult
    public func queryImage(
        forKey key: String?, options: WebImageOptions, context: WebImageContext?, cacheType: ImageCacheType,
        completion: ImageCacheQueryCompletion?
    ) -> (any WebImageOperation)? {
        let (caches, policy) = state.withLock { ($0.caches, $0.queryOperationPolicy) }
        let query: @Sendable (any ImageCacheProtocol, @escaping ImageCacheQueryCompletion) -> (any WebImageOperation)? = {
            $0.queryImage(forKey: key, options: options, context: context, cacheType: cacheType, completion: $1)
        }
        switch policy {
        case .highestOnly, .lowestOnly:
            guard let cache = policy == .highestOnly ? caches.last : caches.first else {
                completion?(nil, nil, .none)
                return nil
            }
            return query(cache) { completion?($0, $1, $2) }
        case .concurrent:
            let operation = CompositeQueryOperation(completion: completion)
            let pending = Atomic(caches.count)
            if caches.isEmpty { operation.finish(nil, nil, .none) }
            for cache in caches.reversed() {
                operation.add(query(cache) { image, data, type in
                    if image != nil { operation.finish(image, data, type) }
                    if pending.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
                        operation.finish(nil, nil, .none)
                    }
                })
            }
            return operation
        case .serial:
            let operation = CompositeQueryOperation(completion: completion)
            Self.querySerially(ArraySlice(caches.reversed()), operation: operation, query: query)
            return operation
        }
    }

    private static func querySerially(
        _ caches: ArraySlice<any ImageCacheProtocol>, operation: CompositeQueryOperation,
        query: @escaping @Sendable (any ImageCacheProtocol, @escaping ImageCacheQueryCompletion) -> (any WebImageOperation)?
    ) {
        guard let cache = caches.first, !operation.isCancelled else {
            operation.finish(nil, nil, .none)
            return
        }
        let rest = caches.dropFirst()
        operation.add(query(cache) { image, data, type in
            if image != nil || operation.isCancelled {
                operation.finish(image, data, type)
            } else {
                querySerially(rest, operation: operation, query: query)
            }
        })
    }

    public func store(
        _ image: Image?, imageData: Data?, forKey key: String?, cacheType: ImageCacheType,
        completion: ImageCacheCompletion?
    ) {
        let (caches, policy) = state.withLock { ($0.caches, $0.storeOperationPolicy) }
        Self.run(policy, over: caches, completion: completion) { cache, done in
            cache.store(image, imageData: imageData, forKey: key, cacheType: cacheType, completion: done)
        }
    }

    public func removeImage(forKey key: String?, cacheType: ImageCacheType, completion: ImageCacheCompletion?) {
        let (caches, policy) = state.withLock { ($0.caches, $0.removeOperationPolicy) }
        Self.run(policy, over: caches, completion: completion) { cache, done in
            cache.removeImage(forKey: key, cacheType: cacheType, completion: done)
        }
    }

    public func clear(with cacheType: ImageCacheType, completion: ImageCacheCompletion?) {
        let (caches, policy) = state.withLock { ($0.caches, $0.clearOperationPolicy) }
        Self.run(policy, over: caches, completion: completion) { cache, done in
            cache.clear(with: cacheType, completion: done)
        }
    }

    public func containsImage(forKey key: String?, cacheType: ImageCacheType, completion: ImageCacheContainsCompletion?) {
        let (caches, policy) = state.withLock { ($0.caches, $0.containsOperationPolicy) }
        let answer = ContainsAnswer(completion)
        switch policy {
        case .highestOnly, .lowestOnly:
            guard let cache = policy == .highestOnly ? caches.last : caches.first else { return answer.give(.none) }
            cache.containsImage(forKey: key, cacheType: cacheType) { answer.give($0) }
        case .concurrent:
            guard !caches.isEmpty else { return answer.give(.none) }
            let pending = Atomic(caches.count)
            for cache in caches.reversed() {
                cache.containsImage(forKey: key, cacheType: cacheType) { type in
                    if type != .none { answer.give(type) }
                    if pending.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { answer.give(.none) }
                }
            }
        case .serial:
            Self.containsSerially(ArraySlice(caches.reversed()), key: key, cacheType: cacheType, answer: answer)
        }
    }

    private static func containsSerially(
        _ caches: ArraySlice<any ImageCacheProtocol>, key: String?, cacheType: ImageCacheType, answer: ContainsAnswer
    ) {
        guard let cache = caches.first else { return answer.give(.none) }
        cache.containsImage(forKey: key, cacheType: cacheType) { type in
            if type != .none {
                answer.give(type)
            } else {
                containsSerially(caches.dropFirst(), key: key, cacheType: cacheType, answer: answer)
            }
        }
    }

    /// Kept by the caches the store policy picks (as the data was).
    public func storeValidators(_ validators: HTTPValidators, forKey key: String, completion: ImageCacheCompletion?) {
        let (caches, policy) = state.withLock { ($0.caches, $0.storeOperationPolicy) }
        Self.run(policy, over: caches, completion: completion) { cache, done in
            cache.storeValidators(validators, forKey: key, completion: done)
        }
    }

    /// The first validators found, the highest priority cache asked first.
    public func queryValidators(forKey key: String, completion: @escaping ImageCacheValidatorsCompletion) {
        Self.queryValidatorsSerially(ArraySlice(caches.reversed()), key: key, completion: completion)
    }

    private static func queryValidatorsSerially(
        _ caches: ArraySlice<any ImageCacheProtocol>, key: String, completion: @escaping ImageCacheValidatorsCompletion
    ) {
        guard let cache = caches.first else { return completion(nil) }
        cache.queryValidators(forKey: key) { validators in
            if let validators {
                completion(validators)
            } else {
                queryValidatorsSerially(caches.dropFirst(), key: key, completion: completion)
            }
        }
    }

    /// Runs `body` on the caches the policy picks; `completion` runs once all of them are done.
    private static func run(
        _ policy: ImageCachesManagerOperationPolicy, over caches: [any ImageCacheProtocol],
        completion: ImageCacheCompletion?,
        _ body: @escaping @Sendable (any ImageCacheProtocol, @escaping ImageCacheCompletion) -> Void
    ) {
        let done: ImageCacheCompletion = { completion?() }
        switch policy {
        case .highestOnly, .lowestOnly:
            guard let cache = policy == .highestOnly ? caches.last : caches.first else { return done() }
            body(cache, done)
        case .concurrent:
            let group = DispatchGroup()
            for cache in caches {
                group.enter()
                body(cache) { group.leave() }
            }
            group.notify(queue: .global(), execute: done)
        case .serial:
            runSerially(ArraySlice(caches.reversed()), completion: done, body)
        }
    }

    private static func runSerially(
        _ caches: ArraySlice<any ImageCacheProtocol>, completion: @escaping ImageCacheCompletion,
        _ body: @escaping @Sendable (any ImageCacheProtocol, @escaping ImageCacheCompletion) -> Void
    ) {
        guard let cache = caches.first else { return completion() }
        body(cache) { runSerially(caches.dropFirst(), completion: completion, body) }
    }
}

/// A contains-completion that runs at most once.
final class ContainsAnswer: Sendable {
    private let completion: Locked<ImageCacheContainsCompletion?>

    init(_ completion: ImageCacheContainsCompletion?) {
        self.completion = Locked(completion)
    }

    func give(_ type: ImageCacheType) {
        let completion = completion.withLock { stored in
            defer { stored = nil }
            return stored
        }
        completion?(type)
    }
}
