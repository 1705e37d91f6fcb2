/// Values by key in least-recently-used order, with their summed cost and the stamp of each
/// value's last use. Every operation is O(1): the recency list is a doubly linked list of slots,
/// so no allocation per access. The links live in their own compact array, so moving an entry to
/// the front touches its neighbours' 8-byte links rather than their whole entries.
/// Not thread-safe; `MemoryCache` keeps each behind a lock.
struct LRUStorage<Key: Hashable, Value> {
    private struct Entry {
        var key: Key?
        var value: Value?
        var cost: Int
        var stamp: UInt64
    }

    private struct Link {
        var previous: Int32
        var next: Int32
    }

    private var slots: [Key: Int] = [:]
    private var entries: [Entry] = []
    private var links: [Link] = []
    private var freeSlots: [Int] = []
    /// Most recently used slot, or -1.
    private var head = -1
    /// Least recently used slot, or -1.
    private var tail = -1

    /// The sum of the costs of the values held.
    private(set) var totalCost = 0

    /// The number of values held.
    var count: Int { slots.count }

    /// The stamp of the least recently used value, or nil when empty.
    var oldestStamp: UInt64? { tail >= 0 ? entries[tail].stamp : nil }

    /// The value under `key`, marked most recently used at `stamp`.
    mutating func value(forKey key: Key, stamp: UInt64) -> Value? {
        guard let slot = slots[key] else { return nil }
        entries[slot].stamp = stamp
        moveToFront(slot)
        return entries[slot].value
    }

    /// Stores `value` as the most recently used, at `stamp`; returns the value it replaces.
    @discardableResult
    mutating func set(_ value: Value, forKey key: Key, cost: Int, stamp: UInt64) -> Value? {
        if let slot = slots[key] {
            let old = entries[slot].value
            totalCost += cost - entries[slot].cost
            entries[slot].value = value
            entries[slot].cost = cost
            entries[slot].stamp = stamp
            moveToFront(slot)
            return old
        }
        let entry = Entry(key: key, value: value, cost: cost, stamp: stamp)
        let slot: Int
        if let reused = freeSlots.popLast() {
            entries[reused] = entry
            slot = reused
        } else {
            entries.append(entry)
            links.append(Link(previous: -1, next: -1))
            slot = entries.count - 1
        }
        slots[key] = slot
        totalCost += cost
        linkAtFront(slot)
        return nil
    }

    /// Removes and returns the value under `key`.
    @discardableResult
    mutating func removeValue(forKey key: Key) -> Value? {
        guard let slot = slots.removeValue(forKey: key) else { return nil }
        return release(slot)
    }

    /// Removes and returns the least recently used value.
    mutating func removeLeastRecentlyUsed() -> Value? {
        guard tail >= 0 else { return nil }
        let slot = tail
        if let key = entries[slot].key { slots[key] = nil }
        return release(slot)
    }

    /// Removes every value and returns them.
    mutating func removeAll() -> [Value] {
        let values = entries.compactMap(\.value)
        self = LRUStorage()
        return values
    }

    private mutating func release(_ slot: Int) -> Value? {
        unlink(slot)
        let value = entries[slot].value
        totalCost -= entries[slot].cost
        entries[slot] = Entry(key: nil, value: nil, cost: 0, stamp: 0)
        freeSlots.append(slot)
        return value
    }

    private mutating func moveToFront(_ slot: Int) {
        guard slot != head else { return }
        unlink(slot)
        linkAtFront(slot)
    }

    private mutating func linkAtFront(_ slot: Int) {
        links[slot] = Link(previous: -1, next: Int32(head))
        if head >= 0 { links[head].previous = Int32(slot) }
        head = slot
        if tail < 0 { tail = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let link = links[slot]
        let previous = Int(link.previous)
        let next = Int(link.next)
        if previous >= 0 { links[previous].next = link.next } else { head = next }
        if next >= 0 { links[next].previous = link.previous } else { tail = previous }
        links[slot] = Link(previous: -1, next: -1)
    }
}
