import Foundation
import Logging
import SystemPackage
import WebImage
import WebImageSupport

/// The server's log handler: one line an event in one of imgproxy's `LOG_FORMAT` forms, written
/// to standard error in batches by a thread of its own (`LogBatches`): a line below `warning`
/// waits at most a tenth of a second, a warning or worse is written as soon as the writer is
/// free, with every line before it. Logging never waits on standard error: when it takes
/// nothing (a stalled pipe), lines past 1 MiB are dropped, counted, and said to be.
///
/// `webimage serve` logs through it (the server's lines and the library's). `StreamLogHandler`
/// formats its time with `strftime` and writes through stdio under a lock with a flush after each
/// line, which was an eighth of a cached hit's CPU; one `write(2)` a line was still a twentieth.
/// Times are UTC, formatted once a second. Metadata follows the message, keys in sorted order.
public struct ImageServerLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?

    private let format: LogFormat
    private let clock: LogClock
    private let write: @Sendable (String, Logger.Level) -> Void

    /// A handler writing `format` lines to standard error. Handlers made by one call of
    /// `factory(format:)` share the clock that formats their times.
    public init(format: LogFormat) {
        self.init(format: format, clock: LogClock(), write: Self.writeToStandardError)
        Self.noticeDroppedLines(format: format, clock: clock)
    }

    /// Writes the lines still waiting and ends the thread that writes them, waiting for it at
    /// most 2 s (standard error may take nothing): call it before the process exits (`webimage
    /// serve` does). A line logged after it is written by the logging call itself.
    public static func shutdown() async {
        await LogBatches.standardError.shutdown()
    }

    /// A factory for `LoggingSystem.bootstrap`: every logger's handler writes `format` lines at
    /// `level`.
    public static func factory(format: LogFormat, level: Logger.Level) -> @Sendable (String) -> any LogHandler {
        let clock = LogClock()
        noticeDroppedLines(format: format, clock: clock)
        return { _ in
            var handler = ImageServerLogHandler(format: format, clock: clock, write: writeToStandardError)
            handler.logLevel = level
            return handler
        }
    }

    /// A handler writing each line through `write` (tests read the lines).
    init(format: LogFormat, clock: LogClock, write: @escaping @Sendable (String) -> Void) {
        self.init(format: format, clock: clock) { line, _ in write(line) }
    }

    private init(format: LogFormat, clock: LogClock, write: @escaping @Sendable (String, Logger.Level) -> Void) {
        self.format = format
        self.clock = clock
        self.write = write
    }

    /// Says in `format` how many lines standard error did not take in time.
    private static func noticeDroppedLines(format: LogFormat, clock: LogClock) {
        let handler = ImageServerLogHandler(format: format, clock: clock) { _ in }
        LogBatches.standardError.setDropNotice { count in
            handler.line(level: .warning, message: "log lines dropped: standard error took none for a while", metadata: ["dropped": "\(count)"], at: Date())
        }
    }

    @Sendable private static func writeToStandardError(_ line: String, level: Logger.Level) {
        LogBatches.standardError.append(line, now: level >= .warning)
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        log(level: event.level, message: event.message.description, fields: event.metadata.map(LogField.fields(of:)) ?? [])
    }

    /// Writes `message` with `fields` after the handler's and the provider's metadata, as
    /// `log(event:)` writes it with the same metadata: the access line's way in, without a
    /// metadata dictionary made and hashed for each request.
    func log(level: Logger.Level, message: String, fields: [LogField]) {
        var entries = LogField.fields(of: metadata)
        if let provided = metadataProvider?.get() { entries += LogField.fields(of: provided) }
        entries += fields
        write(line(level: level, message: message, fields: LogField.sortedLastWins(entries), at: Date()), level)
    }

    /// The line for one event with `metadata`, its newline included.
    func line(level: Logger.Level, message: String, metadata: Logger.Metadata, at date: Date) -> String {
        line(level: level, message: message, fields: LogField.sortedLastWins(LogField.fields(of: metadata)), at: date)
    }

    /// The line for one event with `fields` (sorted by key, each key once), its newline included.
    private func line(level: Logger.Level, message: String, fields: [LogField], at date: Date) -> String {
        let stamp = clock.stamp(Int(date.timeIntervalSince1970.rounded(.down)))
        let levelName = Self.levelName(level)
        var line = ""
        line.reserveCapacity(160 + message.utf8.count)
        switch format {
        case .structured, .pretty:
            let quotesAll = format == .structured
            if quotesAll {
                line += "time=\"\(stamp.dateTime)\" level=\"\(levelName)\" msg="
                LogText.appendQuoted(message, to: &line)
            } else {
                // Raw unless it holds a control character (a path a client sent could start a
                // line that looks like another).
                line += "\(stamp.dateTime) \(levelName) "
                if message.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { LogText.appendQuoted(message, to: &line) } else { line += message }
            }
            for field in fields {
                line += " \(field.key)="
                if LogText.isNumber(field.text) || (!quotesAll && !LogText.needsQuotes(field.text)) {
                    line += field.text
                } else {
                    LogText.appendQuoted(field.text, to: &line)
                }
            }
        case .json, .gcp:
            let (levelKey, messageKey) = format == .gcp ? ("severity", "message") : ("level", "msg")
            line += "{\"time\":\"\(stamp.rfc3339)\",\"\(levelKey)\":\"\(levelName)\",\"\(messageKey)\":"
            LogText.appendQuoted(message, to: &line)
            for field in fields {
                line += ","
                LogText.appendQuoted(field.key, to: &line)
                line += ":"
                if LogText.isNumber(field.text) { line += field.text } else { LogText.appendQuoted(field.text, to: &line) }
            }
            line += "}"
        }
        line += "\n"
        return line
    }

    /// imgproxy's level names, with swift-log's two others.
    static func levelName(_ level: Logger.Level) -> String {
        switch level {
        case .trace: "TRACE"
        case .debug: "DEBUG"
        case .info: "INFO"
        case .notice: "NOTICE"
        case .warning: "WARNING"
        case .error: "ERROR"
        case .critical: "CRITICAL"
        }
    }
}

/// Lines for one file descriptor, gathered and written together by a thread of their own: a
/// busy server's access log in a few `write(2)` a second instead of one a request, and no logging
/// call ever waits on the descriptor. A batch is written a tenth of a second after its first
/// line, when it passes 32 KB, or as soon as the writer is free for a line that asks (with every
/// line before it, in order). A logger only appends under the lock; a reader that stops reading
/// (a full pipe) stops the writer alone. While it is stopped, up to `limit` bytes wait; the lines
/// past them are dropped and counted, and one line says how many once writing resumes.
final class LogBatches: Sendable {
    static let standardError = LogBatches(descriptor: .standardError)

    private static let delay = 0.1
    private static let largest = 32 << 10
    /// The bytes held for a writer that cannot write, by default: a few thousand access lines.
    static let defaultLimit = 1 << 20

    private let descriptor: FileDescriptor
    private let limit: Int
    private let state: State

    /// What the loggers and the writer share. Unchecked: every field is read and written with
    /// `condition` locked (the writer waits on it, so it cannot be a `Locked`).
    private final class State: @unchecked Sendable {
        let condition = NSCondition()
        var bytes: [UInt8] = []
        /// Whether a line asked to be written without waiting for its batch.
        var urgent = false
        /// When the oldest waiting line came (`ProcessInfo.systemUptime`).
        var firstLineAt = 0.0
        /// Lines dropped since the last batch taken: each later line is dropped too until then,
        /// so that the notice stands where the gap is.
        var dropped = 0
        /// The notice for `dropped` lines, one whole line.
        var dropNotice: @Sendable (Int) -> String = { "\($0) log lines dropped: the log's reader fell behind\n" }
        /// The last batch's buffer, emptied, for the next one (its capacity kept).
        var spare: [UInt8] = []
        var stopping = false
        /// The writer thread ended (or was never started: then lines are written by their logger).
        var ended = false
    }

    /// Lines for `descriptor`, written by a thread started now, which `shutdown` ends; at most
    /// `limit` bytes wait while the descriptor takes none.
    init(descriptor: FileDescriptor, limit: Int = LogBatches.defaultLimit) {
        self.descriptor = descriptor
        self.limit = limit
        state = State()
        let thread = Thread { [self] in writeUntilShutdown() }
        thread.name = "webimage-log"
        thread.start()
    }

    /// Sets the line that says how many lines were dropped (the log's own form).
    func setDropNotice(_ notice: @escaping @Sendable (Int) -> String) {
        locked { $0.dropNotice = notice }
    }

    /// Adds `line`; written with its batch, or as soon as the writer can when `now`. Never waits
    /// on the descriptor: after `shutdown`, the line is written here and now.
    func append(_ line: String, now: Bool) {
        let inline = locked { state -> Bool in
            guard !state.ended else { return true }
            guard state.dropped == 0, state.bytes.count + line.utf8.count <= limit else {
                state.dropped += 1
                return false
            }
            if state.bytes.isEmpty { state.firstLineAt = ProcessInfo.processInfo.systemUptime }
            state.bytes.append(contentsOf: line.utf8)
            if now || state.bytes.count >= Self.largest {
                state.urgent = true
                state.condition.broadcast()
            } else if state.bytes.count == line.utf8.count {
                // The batch's first line: the writer waits for its tenth of a second.
                state.condition.broadcast()
            }
            return false
        }
        if inline { write(Array(line.utf8)) }
    }

    /// Writes what waits and ends the writer thread, waiting at most `timeout` seconds for it (a
    /// descriptor that takes nothing keeps it in its `write(2)`: the process is ending anyway).
    /// Lines after it are written by their logger.
    func shutdown(timeout: Double = 2) async {
        _ = try? await BlockingPool.run { [self] in
            let deadline = Date(timeIntervalSinceNow: timeout)
            locked { state in
                state.stopping = true
                state.condition.broadcast()
                while !state.ended, state.condition.wait(until: deadline) {}
                // Timed out: from now on each logger writes its own line.
                state.ended = true
            }
        }
    }

    private func writeUntilShutdown() {
        while var batch = nextBatch() {
            write(batch)
            batch.removeAll(keepingCapacity: true)
            locked { $0.spare = batch }
        }
    }

    /// The next batch once it is due, with the drop notice after it; nil once shut down with
    /// nothing left.
    private func nextBatch() -> [UInt8]? {
        locked { state -> [UInt8]? in
            while true {
                let waiting = !state.bytes.isEmpty || state.dropped > 0
                if !waiting {
                    if state.stopping {
                        state.ended = true
                        state.condition.broadcast()
                        return nil
                    }
                    state.condition.wait()
                    continue
                }
                let due = state.firstLineAt + Self.delay
                let now = ProcessInfo.processInfo.systemUptime
                if state.urgent || state.stopping || state.bytes.count >= Self.largest || now >= due { break }
                _ = state.condition.wait(until: Date(timeIntervalSinceNow: due - now))
            }
            var batch = state.spare
            state.spare = []
            swap(&batch, &state.bytes)
            if state.dropped > 0 {
                batch.append(contentsOf: state.dropNotice(state.dropped).utf8)
                state.dropped = 0
            }
            state.urgent = false
            return batch
        }
    }

    private func locked<T>(_ body: (State) -> T) -> T {
        state.condition.lock()
        defer { state.condition.unlock() }
        return body(state)
    }

    private func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        _ = try? bytes.withUnsafeBytes { try descriptor.writeAll($0) }
    }
}

/// A line's time, formatted once a second for every handler that shares it.
final class LogClock: Sendable {
    private let last = Locked((second: Int.min, dateTime: "", rfc3339: ""))

    /// `second` (since 1970, UTC) as `2026-11-28 07:55:32` and as `2026-11-28T07:55:32Z`.
    func stamp(_ second: Int) -> (dateTime: String, rfc3339: String) {
        last.withLock { last in
            if last.second != second {
                let (date, time) = Self.civil(second)
                last = (second, date + " " + time, date + "T" + time + "Z")
            }
            return (last.dateTime, last.rfc3339)
        }
    }

    /// The UTC date and time of `second`, by Howard Hinnant's days-to-civil algorithm (no
    /// formatter: Foundation's leaks on Linux, `strftime` reads the time zone each call).
    static func civil(_ second: Int) -> (date: String, time: String) {
        let days = second >= 0 ? second / 86_400 : (second - 86_399) / 86_400
        let ofDay = second - days * 86_400
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(year)
        let date = String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText + "-" + two(month) + "-" + two(day)
        return (date, two(ofDay / 3600) + ":" + two(ofDay / 60 % 60) + ":" + two(ofDay % 60))
    }
}

/// One metadata entry of a line: its key and its value as the line writes it.
struct LogField {
    var key: String
    var text: String

    init(_ key: String, _ text: String) {
        self.key = key
        self.text = text
    }

    static func fields(of metadata: Logger.Metadata) -> [LogField] {
        metadata.map { LogField($0.key, $0.value.description) }
    }

    /// `fields` by key, of equal keys the last only. An insertion sort of a concrete value: a
    /// line has a handful of fields, and the generic stable sort of (key, value) tuples it
    /// replaces was a twentieth of a cached hit's CPU.
    static func sortedLastWins(_ fields: [LogField]) -> [LogField] {
        var sorted: [LogField] = []
        sorted.reserveCapacity(fields.count)
        for field in fields {
            var index = sorted.count
            while index > 0, field.key < sorted[index - 1].key { index -= 1 }
            if index > 0, sorted[index - 1].key == field.key {
                sorted[index - 1] = field
            } else {
                sorted.insert(field, at: index)
            }
        }
        return sorted
    }
}

/// Quoting for log values: JSON's string escapes, which a logfmt reader also takes.
enum LogText {
    static func appendQuoted(_ text: String, to line: inout String) {
        line += "\""
        let escaped = { (byte: UInt8) in byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F }
        // Over the bytes in place when the string has them (a native one does): the UTF-8 view's
        // iterator took 0.76 µs of a memory hit at 16 connections (perf, run 16).
        guard text.utf8.withContiguousStorageIfAvailable({ $0.contains(where: escaped) }) ?? text.utf8.contains(where: escaped) else {
            line += text
            line += "\""
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                line += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: line.unicodeScalars.append(scalar)
            }
        }
        line += "\""
    }

    /// An integer or a decimal (`200`, `-1`, `0.4`), written bare.
    static func isNumber(_ text: String) -> Bool {
        var digits = 0
        var points = 0
        for (index, byte) in text.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "-") where index == 0: continue
            case UInt8(ascii: ".") where digits > 0 && points == 0: points += 1
            default: return false
            }
        }
        return digits > 0 && text.utf8.last != UInt8(ascii: ".")
    }

    /// Whether a pretty line must quote `text`: empty, or with a space, `=`, a quote or a control.
    static func needsQuotes(_ text: String) -> Bool {
        text.isEmpty || text.utf8.contains { $0 <= 0x20 || $0 == 0x3D || $0 == 0x22 || $0 == 0x7F }
    }
}
