import PushMockCore
import PushMockStore

/// The one place a push endpoint hands its `Delivery` to: the store (which wakes waiters and event
/// streams) and the metrics. Endpoints never call the store directly, so nothing recorded escapes
/// the counters.
final class DeliveryRecorder: Sendable {
    let store: InMemoryDeliveryStore
    let metrics: ServerMetrics

    init(store: InMemoryDeliveryStore, metrics: ServerMetrics) {
        self.store = store
        self.metrics = metrics
    }

    /// Records `delivery` and returns its id.
    @discardableResult
    func record(_ delivery: Delivery) -> UInt64 {
        metrics.recorded(delivery)
        return store.record(delivery)
    }
}
