/// Values by key with their summed cost and the stamp of each value's last use, taken out least
/// recently used first. A use writes its own entry's stamp and nothing else: the order lives in
/// a min-heap of stamps brought up to date lazily, when the oldest is asked for (a node whose
/// entry was used since it went in goes back in with the newer stamp). So a hit touches no other
/// entry's memory (a linked recency list writes its neighbours' and the head's links), which is
/// what lets two threads hit one shard without handing cache lines back and forth; the order
/// taken out stays exact, in O(log n) amortized.
/// Not thread-safe; `MemoryCache` keeps each behind a lock.
struct LRUStorage<Key: Hashable, Value> {
    private struct Entry {
        var key: Key?
        var value: Value?
        var cost: Int
        var stamp: UInt64
        /// Bumped when the slot is emptied, so the heap nodes of its earlier entries are known stale.
        var generation: UInt32
    }

    /// A slot as of `stamp`: the entry's stamp is this or newer while its generation matches.
    private struct Node {
        var stamp: UInt64
        var slot: Int32
        var generation: UInt32
    }

    private var slots: [Key: Int] = [:]
    private var entries: [Entry] = []
    private var freeSlots: [Int] = []
    /// A min-heap by stamp, with a node for every value held (and stale ones, dropped on the way).
    private var heap: [Node] = []

    /// The sum of the costs of the values held.
    private(set) var totalCost = 0

    /// The number of values held.
    var count: Int { slots.count }

    /// At most the stamp of the least recently used value (nil when nothing was ever held or
    /// the heap is empty), without bringing the heap up to date: exact after `oldestStamp()`.
    var oldestStampBound: UInt64? { heap.first?.stamp }

    /// The stamp of the least recently used value, or nil when empty.
    mutating func oldestStamp() -> UInt64? {
        oldestSlot().map { entries[$0].stamp }
    }

    /// The value under `key`, marked used at `stamp`.
    mutating func value(forKey key: Key, stamp: UInt64) -> Value? {
        guard let slot = slots[key] else { return nil }
        entries[slot].stamp = stamp
        return entries[slot].value
    }

    /// Stores `value` as used at `stamp`; returns the value it replaces.
    @discardableResult
    mutating func set(_ value: Value, forKey key: Key, cost: Int, stamp: UInt64) -> Value? {
        if let slot = slots[key] {
            let old = entries[slot].value
            totalCost += cost - entries[slot].cost
            entries[slot].value = value
            entries[slot].cost = cost
            entries[slot].stamp = stamp
            return old
        }
        let slot: Int
        if let reused = freeSlots.popLast() {
            entries[reused] = Entry(key: key, value: value, cost: cost, stamp: stamp, generation: entries[reused].generation)
            slot = reused
        } else {
            entries.append(Entry(key: key, value: value, cost: cost, stamp: stamp, generation: 0))
            slot = entries.count - 1
        }
        slots[key] = slot
        totalCost += cost
        push(Node(stamp: stamp, slot: Int32(slot), generation: entries[slot].generation))
        return nil
    }

    /// Removes and returns the value under `key`.
    @discardableResult
    mutating func removeValue(forKey key: Key) -> Value? {
        guard let slot = slots.removeValue(forKey: key) else { return nil }
        let value = release(slot)
        // Nodes of removed entries wait in the heap until they reach the top: rebuild it when
        // they outnumber the live ones, so removals without evictions cannot grow it for ever.
        if heap.count > 2 * slots.count + 64 { rebuildHeap() }
        return value
    }

    /// Removes and returns the least recently used value.
    mutating func removeLeastRecentlyUsed() -> Value? {
        guard let slot = oldestSlot() else { return nil }
        popTop()
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
        let value = entries[slot].value
        totalCost -= entries[slot].cost
        entries[slot] = Entry(key: nil, value: nil, cost: 0, stamp: 0, generation: entries[slot].generation &+ 1)
        freeSlots.append(slot)
        return value
    }

    /// The least recently used slot: the heap's top once stale nodes are dropped and nodes of
    /// entries used since are put back with their newer stamps.
    private mutating func oldestSlot() -> Int? {
        while let top = heap.first {
            let entry = entries[Int(top.slot)]
            if entry.generation != top.generation {
                popTop()
            } else if entry.stamp != top.stamp {
                heap[0].stamp = entry.stamp
                siftDown(0)
            } else {
                return Int(top.slot)
            }
        }
        return nil
    }

    private mutating func rebuildHeap() {
        heap = slots.values.map { Node(stamp: entries[$0].stamp, slot: Int32($0), generation: entries[$0].generation) }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    // MARK: Binary heap

    private mutating func push(_ node: Node) {
        heap.append(node)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].stamp < heap[parent].stamp else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func popTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            let right = left + 1
            let child = right < heap.count && heap[right].stamp < heap[left].stamp ? right : left
            guard heap[child].stamp < heap[parent].stamp else { return }
            heap.swapAt(child, parent)
            parent = child
        }
    }
}
