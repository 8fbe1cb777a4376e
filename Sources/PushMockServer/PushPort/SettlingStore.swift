import PushMockCore
import PushMockStore
import PushMockTransport

/// The delivery store as readers see it: every read first waits until the pushes already answered
/// have been kept (their records are kept once their answers are flushed, ``PushRecorder/record``),
/// so that a client that has read an answer finds its delivery. Writes go straight through.
final class SettlingStore: DeliveryStore {
    private let store: any DeliveryStore
    private let lanes: AnswerLanes

    init(_ store: any DeliveryStore, lanes: AnswerLanes) {
        self.store = store
        self.lanes = lanes
    }

    @discardableResult
    func record(_ delivery: Delivery) -> UInt64 { store.record(delivery) }

    func recordRelay(_ result: RelayResult, forDelivery id: UInt64) { store.recordRelay(result, forDelivery: id) }

    func recordRelay(_ result: RelayResult, forDeliveries ids: ClosedRange<UInt64>) { store.recordRelay(result, forDeliveries: ids) }

    func query(_ filter: DeliveryFilter, limit: Int) async throws -> DeliveryPage {
        await lanes.settled()
        return try await store.query(filter, limit: limit)
    }

    func delivery(id: UInt64) async throws -> Delivery? {
        await lanes.settled()
        return try await store.delivery(id: id)
    }

    func deliveries(after cursor: UInt64, matching filter: DeliveryFilter, limit: Int) async throws -> [Delivery] {
        await lanes.settled()
        return try await store.deliveries(after: cursor, matching: filter, limit: limit)
    }

    @discardableResult
    func remove(_ filter: DeliveryFilter) async throws -> Int {
        await lanes.settled()
        return try await store.remove(filter)
    }

    func clear() async throws {
        await lanes.settled()
        try await store.clear()
    }

    func newestID() async throws -> UInt64 {
        await lanes.settled()
        return try await store.newestID()
    }

    func wait(for filter: DeliveryFilter, count: Int, timeout: Duration) async throws -> Bool {
        await lanes.settled()
        return try await store.wait(for: filter, count: count, timeout: timeout)
    }

    func statistics() async -> DeliveryStoreStatistics {
        await lanes.settled()
        return await store.statistics()
    }

    func close() async throws {
        await lanes.settled()
        try await store.close()
    }
}
