import CoreMetrics
import Prometheus
import PushMockCore
import PushMockStore
import PushMockTransport
import Synchronization

/// What the transport and endpoints count, through swift-metrics into a swift-prometheus registry
/// owned by this server (never the global `MetricsSystem`, so several in-process servers in one
/// test run keep their own numbers), rendered at `GET /metrics` in the Prometheus text format.
///
/// Requests by service, outcome and reason; faults fired; dropped-by-device reasons; transport
/// refusals that never became a delivery; connections and requests in flight; store size; the
/// time a push spends in PushMock (a histogram per service).
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let requests = Mutex<[String: CoreMetrics.Counter]>([:])
    private let faultCounters = Mutex<[String: CoreMetrics.Counter]>([:])
    private let transport: [TransportEvent: CoreMetrics.Counter]
    /// Per service, in `Delivery.Service.all` order, then "other": looked up by index, not hashed,
    /// and counted without a lock.
    private let latency: LatencyHistogram
    /// `{service, outcome="accepted", reason="none"}` per service: the common case takes no lock.
    private let acceptedCounters: [CoreMetrics.Counter]
    private let opened: CoreMetrics.Counter
    private let active: CoreMetrics.Meter
    private let inFlight: CoreMetrics.Meter
    private let storeSize: CoreMetrics.Meter
    private let evicted: CoreMetrics.Meter
    private let dropped: CoreMetrics.Meter
    private let undecodable: CoreMetrics.Meter
    private let queued: CoreMetrics.Meter
    private let relayDroppedCounter: CoreMetrics.Counter
    /// `pushmock_relay_answers_total{service, agrees}`: apns/fcm × true/false/none.
    private let relayAnswers: [String: CoreMetrics.Counter]

    /// Latency buckets: a push normally takes microseconds; injected delays take milliseconds.
    static let latencyBuckets: [Duration] = [
        .microseconds(5), .microseconds(10), .microseconds(25), .microseconds(50), .microseconds(100),
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(5), .milliseconds(25),
        .milliseconds(100), .milliseconds(500), .seconds(1), .seconds(5),
    ]

    init() {
        let factory = PrometheusMetricsFactory(registry: registry)
        self.factory = factory
        var transport: [TransportEvent: CoreMetrics.Counter] = [:]
        for event in TransportEvent.allCases {
            transport[event] = CoreMetrics.Counter(
                label: "pushmock_transport_events_total", dimensions: [("event", event.rawValue)], factory: factory)
        }
        self.transport = transport
        latency = LatencyHistogram(
            name: "pushmock_request_duration_seconds", services: Delivery.Service.all.map(\.rawValue) + ["other"], bounds: Self.latencyBuckets
        )
        let accepted = Delivery.Service.all.map { service in
            CoreMetrics.Counter(
                label: "pushmock_requests_total",
                dimensions: [("service", service.rawValue), ("outcome", Delivery.Outcome.accepted.rawValue), ("reason", "none")],
                factory: factory
            )
        }
        acceptedCounters = accepted
        var seeded: [String: CoreMetrics.Counter] = [:]
        for (service, counter) in zip(Delivery.Service.all, accepted) {
            seeded[service.rawValue + "|accepted|none"] = counter
        }
        requests.withLock { $0 = seeded }
        opened = CoreMetrics.Counter(label: "pushmock_connections_opened_total", factory: factory)
        active = CoreMetrics.Meter(label: "pushmock_connections_active", factory: factory)
        inFlight = CoreMetrics.Meter(label: "pushmock_requests_in_flight", factory: factory)
        storeSize = CoreMetrics.Meter(label: "pushmock_store_deliveries", factory: factory)
        evicted = CoreMetrics.Meter(label: "pushmock_store_evicted_total", factory: factory)
        dropped = CoreMetrics.Meter(label: "pushmock_store_dropped_total", factory: factory)
        undecodable = CoreMetrics.Meter(label: "pushmock_store_undecodable_total", factory: factory)
        queued = CoreMetrics.Meter(label: "pushmock_store_queued", factory: factory)
        relayDroppedCounter = CoreMetrics.Counter(label: "pushmock_relay_dropped_total", factory: factory)
        var answers: [String: CoreMetrics.Counter] = [:]
        for service in [Delivery.Service.apns, .fcm] {
            for agrees in ["true", "false", "none"] {
                answers[service.rawValue + "|" + agrees] = CoreMetrics.Counter(
                    label: "pushmock_relay_answers_total", dimensions: [("service", service.rawValue), ("agrees", agrees)], factory: factory)
            }
        }
        relayAnswers = answers
    }

    /// A push the relay's queue had no room for.
    func relayDropped() { relayDroppedCounter.increment() }

    /// A forward finished: the upstream's answer agreed, disagreed, or there was none.
    func relayAnswered(service: Delivery.Service, agrees: Bool?) {
        relayAnswers[service.rawValue + "|" + (agrees.map { $0 ? "true" : "false" } ?? "none")]?.increment()
    }

    func record(_ event: TransportEvent) {
        transport[event]?.increment()
    }

    func connectionOpened() {
        opened.increment()
        active.increment()
    }

    func connectionClosed() { active.decrement() }

    /// A push that was answered later (an injected delay) started or finished.
    func requestDeferred() { inFlight.increment() }
    func deferredRequestFinished() { inFlight.decrement() }

    /// Counts a recorded delivery: by service, outcome and reason, and the fault that fired.
    func recorded(_ delivery: Delivery) {
        if delivery.outcome == .accepted, delivery.reason == nil, delivery.fault == nil,
            let index = Self.serviceIndex(delivery.service.rawValue), index < acceptedCounters.count
        {
            acceptedCounters[index].increment()
            return
        }
        var reason = delivery.reason ?? "none"
        var key = delivery.service.rawValue + "|" + delivery.outcome.rawValue + "|" + reason
        let factory = self.factory
        let counter = requests.withLock { counters in
            if let existing = counters[key] { return existing }
            // A fault's reason is any string a test chose: past the bound, new ones share one series.
            if counters.count >= Self.maxSeries {
                reason = "other"
                key = delivery.service.rawValue + "|" + delivery.outcome.rawValue + "|" + reason
                if let existing = counters[key] { return existing }
            }
            let made = CoreMetrics.Counter(
                label: "pushmock_requests_total",
                dimensions: [("service", delivery.service.rawValue), ("outcome", delivery.outcome.rawValue), ("reason", reason)],
                factory: factory
            )
            counters[key] = made
            return made
        }
        counter.increment()
        if let fault = delivery.fault {
            let faultCounter = faultCounters.withLock { counters in
                // Faults are often one-shot with fresh ids (a test each): past the bound, new ids
                // share the series `fault="other"`, so /metrics stays small however many there were.
                let label = counters[fault + "|" + delivery.service.rawValue] != nil || counters.count < Self.maxSeries ? fault : "other"
                let key = label + "|" + delivery.service.rawValue
                if let existing = counters[key] { return existing }
                let made = CoreMetrics.Counter(
                    label: "pushmock_faults_fired_total", dimensions: [("fault", label), ("service", delivery.service.rawValue)], factory: factory)
                counters[key] = made
                return made
            }
            faultCounter.increment()
        }
    }

    /// Distinct label sets kept per counter family at most (fault ids, fault-chosen reasons).
    static let maxSeries = 200

    /// The time one push took inside PushMock (responder entry to answer).
    func observeLatency(service: Delivery.Service?, nanoseconds: Int64) {
        latency.record(service: service.flatMap { Self.serviceIndex($0.rawValue) } ?? latency.services.count - 1, nanoseconds: nanoseconds)
    }

    /// The index of a service in `Delivery.Service.all` (small-string compares, no hashing).
    static func serviceIndex(_ service: String) -> Int? {
        switch service {
        case "apns": 0
        case "fcm": 1
        case "oauth": 2
        case "broadcast": 3
        case "iid": 4
        case "webpush": 5
        default: nil
        }
    }

    /// The Prometheus text exposition.
    func render(_ store: DeliveryStoreStatistics) -> [UInt8] {
        storeSize.set(store.count)
        evicted.set(Int(store.evicted))
        dropped.set(Int(store.dropped))
        undecodable.set(Int(clamping: UndecodableRecords.count))
        queued.set(store.queued)
        var text = registry.emitToBuffer()
        latency.emit(into: &text)
        return text
    }
}
