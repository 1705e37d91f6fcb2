/// A cache key with its hash computed once, outside any lock: the hash picks the shard and
/// serves the shard's dictionary, so a lookup hashes the string once.
struct HashedKey: Hashable {
    let string: String
    let hash: Int

    init(_ string: String) {
        self.string = string
        hash = string.hashValue
    }

    static func == (lhs: HashedKey, rhs: HashedKey) -> Bool {
        lhs.hash == rhs.hash && lhs.string == rhs.string
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }
}
