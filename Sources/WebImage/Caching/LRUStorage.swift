/// Values by key in least-recently-used order, with their summed cost. Every operation is O(1):
/// the recency list is a doubly linked list of slots in one array, so no allocation per access.
/// Not thread-safe; `MemoryCache` keeps it behind a lock.
struct LRUStorage<Value> {
    private struct Node {
        var key: String
        var value: Value?
        var cost: Int
        var previous: Int
        var next: Int
    }

    private var slots: [String: Int] = [:]
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

    /// The value under `key`, marked most recently used.
    mutating func value(forKey key: String) -> Value? {
        guard let slot = slots[key] else { return nil }
        moveToFront(slot)
        return nodes[slot].value
    }

    /// The value under `key` without changing its recency.
    func peek(forKey key: String) -> Value? {
        slots[key].flatMap { nodes[$0].value }
    }

    /// Stores `value` as the most recently used; returns the value it replaces.
    @discardableResult
    mutating func set(_ value: Value, forKey key: String, cost: Int) -> Value? {
        if let slot = slots[key] {
            let old = nodes[slot].value
            totalCost += cost - nodes[slot].cost
            nodes[slot].value = value
            nodes[slot].cost = cost
            moveToFront(slot)
            return old
        }
        let node = Node(key: key, value: value, cost: cost, previous: -1, next: -1)
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
    mutating func removeValue(forKey key: String) -> Value? {
        guard let slot = slots.removeValue(forKey: key) else { return nil }
        return release(slot)
    }

    /// Removes and returns the least recently used value.
    mutating func removeLeastRecentlyUsed() -> Value? {
        guard tail >= 0 else { return nil }
        let slot = tail
        slots[nodes[slot].key] = nil
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
        nodes[slot].key = ""
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
