/// How an `ImageCachesManager` spreads an operation over its caches: SDWebImage's
/// `SDImageCachesManagerOperationPolicy`. The cache added last has the highest priority.
public enum ImageCachesManagerOperationPolicy: Sendable, Hashable {
    /// Only the highest-priority cache (the last added).
    case highestOnly
    /// Only the lowest-priority cache (the first added).
    case lowestOnly
    /// All caches at once; for a query or a lookup, the first answer that finds something wins.
    case concurrent
    /// One cache after another from the highest priority; a query or a lookup stops at the first hit.
    case serial
}
