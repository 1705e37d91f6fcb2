/// Values by key in least-recently-used order, with their summed cost and the stamp of each
/// value's last use. Every operation is O(1): the recency list is a doubly linked list of slots
/// in one array, so no allocation per access. Not thread-safe; `MemoryCache` keeps each behind a lock.
struct LRUStorage<Key: Hashable, Value> {
    private struct Node {
        var key: Key?
        var value: Value?
        var cost: Int
        var stamp: UInt64
        var previous: Int
        var next: Int
    }

    private var slots: [Key: Int] = [:]
    private var nodes: [Node] = []
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
    var oldestStamp: UInt64? { tail >= 0 ? nodes[tail].stamp : nil }

    /// The value under `key`, marked most recently used at `stamp`.
    mutating func value(forKey key: Key, stamp: UInt64) -> Value? {
        guard let slot = slots[key] else { return nil }
        nodes[slot].stamp = stamp
        moveToFront(slot)
        return nodes[slot].value
    }

    /// Stores `value` as the most recently used, at `stamp`; returns the value it replaces.
    @discardableResult
    mutating func set(_ value: Value, forKey key: Key, cost: Int, stamp: UInt64) -> Value? {
        if let slot = slots[key] {
            let old = nodes[slot].value
            totalCost += cost - nodes[slot].cost
            nodes[slot].value = value
            nodes[slot].cost = cost
            nodes[slot].stamp = stamp
            moveToFront(slot)
            return old
        }
        let node = Node(key: key, value: value, cost: cost, stamp: stamp, previous: -1, next: -1)
        let slot: Int
        if let reused = freeSlots.popLast() {
            nodes[reused] = node
            slot = reused
        } else {
            nodes.append(node)
            slot = nodes.count - 1
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
        if let key = nodes[slot].key { slots[key] = nil }
        return release(slot)
    }

    /// Removes every value and returns them.
    mutating func removeAll() -> [Value] {
        let values = nodes.compactMap(\.value)
        self = LRUStorage()
        return values
    }

    private mutating func release(_ slot: Int) -> Value? {
        unlink(slot)
        let value = nodes[slot].value
        totalCost -= nodes[slot].cost
        nodes[slot].value = nil
        nodes[slot].key = nil
        nodes[slot].cost = 0
        freeSlots.append(slot)
        return value
    }

    private mutating func moveToFront(_ slot: Int) {
        guard slot != head else { return }
        unlink(slot)
        linkAtFront(slot)
    }

    private mutating func linkAtFront(_ slot: Int) {
        nodes[slot].previous = -1
        nodes[slot].next = head
        if head >= 0 { nodes[head].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let previous = nodes[slot].previous
        let next = nodes[slot].next
        if previous >= 0 { nodes[previous].next = next } else { head = next }
        if next >= 0 { nodes[next].previous = previous } else { tail = previous }
        nodes[slot].previous = -1
        nodes[slot].next = -1
    }
}
