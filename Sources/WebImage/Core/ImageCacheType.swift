/// Which cache tiers an image came from or an operation applies to: SDWebImage's `SDImageCacheType`.
public enum ImageCacheType: Int, Sendable, Hashable {
    /// Not cached, or no tier.
    case none = 0
    /// The disk tier.
    case disk = 1
    /// The memory tier.
    case memory = 2
    /// Both tiers.
    case all = 3

    var includesMemory: Bool { self == .memory || self == .all }
    var includesDisk: Bool { self == .disk || self == .all }
    /// These tiers but memory.
    var withoutMemory: ImageCacheType { includesDisk ? .disk : .none }
    /// The memory tier if these include it.
    var memoryTier: ImageCacheType { includesMemory ? .memory : .none }
}
