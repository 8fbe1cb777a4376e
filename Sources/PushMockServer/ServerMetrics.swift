import PushMockStore
import PushMockTransport
import Synchronization

/// What the transport and endpoints count, rendered at `GET /metrics` in the Prometheus text format:
/// requests by service and outcome, transport refusals (protocol errors, floods, refused streams,
/// TLS failures) that never became a delivery, connections, store size.
final class ServerMetrics: Sendable {
    private let events = Mutex<[String: Int]>([:])
    private let opened = Atomic<Int>(0)
    private let closed = Atomic<Int>(0)

    func record(_ event: TransportEvent) {
        events.withLock { $0[event.rawValue, default: 0] += 1 }
    }

    func connectionOpened() { opened.add(1, ordering: .relaxed) }
    func connectionClosed() { closed.add(1, ordering: .relaxed) }

    /// The Prometheus text exposition.
    func render(store: InMemoryDeliveryStore) -> String {
        var out = "# HELP pushmock_requests_total Requests to push endpoints, by service and outcome.\n# TYPE pushmock_requests_total counter\n"
        for total in store.totals {
            out += "pushmock_requests_total{service=\"\(total.service)\",outcome=\"\(total.outcome)\"} \(total.count)\n"
        }
        out += "# HELP pushmock_transport_events_total Things the transport refused before a request existed.\n# TYPE pushmock_transport_events_total counter\n"
        let counted = events.withLock { $0 }
        for event in TransportEvent.allCases {
            out += "pushmock_transport_events_total{event=\"\(event.rawValue)\"} \(counted[event.rawValue] ?? 0)\n"
        }
        let openedCount = opened.load(ordering: .relaxed)
        out += "# HELP pushmock_connections_opened_total Client connections opened.\n# TYPE pushmock_connections_opened_total counter\n"
        out += "pushmock_connections_opened_total \(openedCount)\n"
        out += "# HELP pushmock_connections_active Client connections open now.\n# TYPE pushmock_connections_active gauge\n"
        out += "pushmock_connections_active \(openedCount - closed.load(ordering: .relaxed))\n"
        out += "# HELP pushmock_store_deliveries Deliveries kept in memory.\n# TYPE pushmock_store_deliveries gauge\n"
        out += "pushmock_store_deliveries \(store.count)\n"
        out += "# HELP pushmock_store_evicted_total Deliveries evicted by retention.\n# TYPE pushmock_store_evicted_total counter\n"
        out += "pushmock_store_evicted_total \(store.evictedCount)\n"
        return out
    }
}
