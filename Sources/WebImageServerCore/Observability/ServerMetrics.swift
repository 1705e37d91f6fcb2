import Metrics
import WebImageSupport

/// The server's counters, timers and gauges (swift-metrics; `webimage serve` exports them to
/// Prometheus on `PROMETHEUS_BIND`). Names start with `webimage_server_`.
package final class ServerMetrics: Sendable {
    private let factory: any MetricsFactory
    /// Requests being answered.
    let inFlight: Gauge
    /// Jobs waiting for a worker.
    let queueDepth: Gauge
    /// Workers busy.
    let workersBusy: Gauge
    /// Processings actually run (shared requests count once).
    let processed: Counter
    /// Time from the request to its response.
    let requestDuration: Timer
    /// Time a processing took, source fetch excluded.
    let processingDuration: Timer
    /// Source bytes fetched or read, and result bytes sent.
    let sourceBytes: Counter
    let responseBytes: Counter
    /// Sources refused by the source guard or the allowed-sources list.
    let sourcesRefused: Counter
    /// Requests being answered now, behind `inFlight`.
    private let answering = Locked(0)
    /// The counters with dimensions made so far, by label and dimensions.
    private let counters = Locked<[CounterKey: Counter]>([:])

    /// A counter's label and dimensions' values (the names come with the label): hashed as they
    /// are, no string built a request.
    private struct CounterKey: Hashable {
        let label: String
        let first: String
        let second: String?
    }

    init(factory: (any MetricsFactory)?) {
        let factory = factory ?? MetricsSystem.factory
        self.factory = factory
        inFlight = Gauge(label: "webimage_server_requests_in_flight", factory: factory)
        queueDepth = Gauge(label: "webimage_server_queue_depth", factory: factory)
        workersBusy = Gauge(label: "webimage_server_workers_busy", factory: factory)
        processed = Counter(label: "webimage_server_processed_total", factory: factory)
        requestDuration = Timer(label: "webimage_server_request_duration_seconds", factory: factory)
        processingDuration = Timer(label: "webimage_server_processing_duration_seconds", factory: factory)
        sourceBytes = Counter(label: "webimage_server_source_bytes_total", factory: factory)
        responseBytes = Counter(label: "webimage_server_response_bytes_total", factory: factory)
        sourcesRefused = Counter(label: "webimage_server_sources_refused_total", factory: factory)
    }

    /// Counts an answered request by status and output format ("none" for errors).
    func requests(status: Int, format: String) {
        counter("webimage_server_requests_total", ("status", String(status)), ("format", format)).increment()
    }

    /// Counts a client connection closed by a limit, named by its setting (`READ_REQUEST_TIMEOUT`).
    package func connectionClosed(limit: String) {
        counter("webimage_server_connections_closed_total", ("limit", limit)).increment()
    }

    /// Counts a lookup of the result cache: `memory`, `disk`, `storage` or `miss`.
    func cacheLookup(tier: String) {
        counter("webimage_server_cache_lookups_total", ("tier", tier)).increment()
    }

    /// Counts a call to the shared result store by operation (`get`, `put`) and outcome: `hit`,
    /// `miss`, `written`, `failed` (an error, a timeout, a corrupt object), `dropped` (a write not
    /// begun: too many in flight).
    func resultStorage(_ operation: String, _ outcome: String) {
        counter("webimage_server_result_storage_calls_total", ("operation", operation), ("outcome", outcome)).increment()
    }

    /// The counter `label` with `dimensions`, made once: a factory's lookup of a labelled
    /// counter takes its lock and hashes every dimension, on every request.
    private func counter(_ label: String, _ first: (String, String), _ second: (String, String)? = nil) -> Counter {
        let key = CounterKey(label: label, first: first.1, second: second?.1)
        return counters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(label: label, dimensions: [first] + (second.map { [$0] } ?? []), factory: factory)
            counters[key] = counter
            return counter
        }
    }

    /// A request arrived: one more in flight.
    func requestStarted() {
        inFlight.record(answering.withLock { count in count += 1; return count })
    }

    /// A request was answered: one fewer in flight.
    func requestEnded() {
        inFlight.record(answering.withLock { count in count -= 1; return count })
    }
}
