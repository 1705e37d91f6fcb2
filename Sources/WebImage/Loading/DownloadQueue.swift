import NIOCore

/// The downloads waiting for a slot, one line per priority: the highest priority line is served
/// first; within a line, the oldest (FIFO) or the newest (LIFO). A download whose priority rises
/// while it waits joins the higher line; its old place is skipped when reached. Not thread-safe:
/// the downloader holds it under its lock.
struct DownloadQueue {
    private struct Entry {
        let operation: DownloadOperation
        let priority: DownloadPriority
    }

    /// Indexed by `DownloadPriority.rawValue`.
    private var lines = [CircularBuffer<Entry>](repeating: CircularBuffer(), count: 3)
    private var queuedPriority: [ObjectIdentifier: DownloadPriority] = [:]

    /// Downloads waiting.
    var count: Int { queuedPriority.count }

    /// Queues `operation`, or moves it to a higher line when it waits already at a lower priority.
    mutating func enqueue(_ operation: DownloadOperation, priority: DownloadPriority) {
        let id = ObjectIdentifier(operation)
        if let current = queuedPriority[id], current >= priority { return }
        queuedPriority[id] = priority
        lines[priority.rawValue].append(Entry(operation: operation, priority: priority))
    }

    /// Moves a waiting `operation` to a higher line; does nothing for one that is not waiting.
    mutating func raisePriority(of operation: DownloadOperation, to priority: DownloadPriority) {
        guard queuedPriority[ObjectIdentifier(operation)] != nil else { return }
        enqueue(operation, priority: priority)
    }

    /// Forgets `operation` (cancelled while waiting).
    mutating func remove(_ operation: DownloadOperation) {
        queuedPriority[ObjectIdentifier(operation)] = nil
    }

    /// The next download to start, in `order` within the highest non-empty priority.
    mutating func next(order: DownloadExecutionOrder) -> DownloadOperation? {
        for priority in [DownloadPriority.high, .normal, .low] {
            while !lines[priority.rawValue].isEmpty {
                let entry = order == .fifo ? lines[priority.rawValue].removeFirst() : lines[priority.rawValue].removeLast()
                let id = ObjectIdentifier(entry.operation)
                guard queuedPriority[id] == entry.priority else { continue }   // moved up or removed
                queuedPriority[id] = nil
                return entry.operation
            }
        }
        return nil
    }

    /// Empties the queue, returning what waited.
    mutating func removeAll() -> [DownloadOperation] {
        var waiting: [DownloadOperation] = []
        for line in lines {
            for entry in line where queuedPriority[ObjectIdentifier(entry.operation)] == entry.priority {
                waiting.append(entry.operation)
            }
        }
        lines = lines.map { _ in CircularBuffer() }
        queuedPriority = [:]
        return waiting
    }
}
