public import PushMockCore

/// Where recorded deliveries live: the one seam between PushMock and its storage (memory today;
/// SQLite and PostgreSQL stores implement the same protocol and pass the same contract suite).
///
/// Recording is synchronous and never blocks the event loop that answers the push: a store that
/// writes to disk or a database queues the write. Everything else is async, so that a store may
/// ask a server.
///
/// ```swift
/// let store: any DeliveryStore = InMemoryDeliveryStore(retention: 10_000)
/// let id = store.record(delivery)
/// let page = try await store.query(DeliveryFilter(service: .apns), limit: 50)
/// let arrived = try await store.wait(for: DeliveryFilter(after: id), count: 1, timeout: .seconds(5))
/// for try await delivery in store.events(after: id) { print(delivery.id) }
/// ```
public protocol DeliveryStore: AnyObject, Sendable {
    /// Records `delivery`, assigning its id, which is returned. Never blocks on readers, the disk
    /// or a network.
    @discardableResult
    func record(_ delivery: Delivery) -> UInt64

    /// Keeps what a relay's upstream answered to delivery `id` (replacing an earlier answer), if
    /// that delivery is still kept. Never blocks: a store that writes queues the write.
    func recordRelay(_ result: RelayResult, forDelivery id: UInt64)

    /// Keeps `result` with each delivery in `ids` that is still kept: the same answer for a run of
    /// deliveries (a relay's `queue full`). Never blocks.
    func recordRelay(_ result: RelayResult, forDeliveries ids: ClosedRange<UInt64>)

    /// Matching deliveries, newest first, at most `limit`, and how many match in all.
    func query(_ filter: DeliveryFilter, limit: Int) async throws -> DeliveryPage

    /// The delivery with `id`, if still kept.
    func delivery(id: UInt64) async throws -> Delivery?

    /// Matching deliveries with an id greater than `cursor`, oldest first, at most `limit`: what an
    /// event stream sends next.
    func deliveries(after cursor: UInt64, matching filter: DeliveryFilter, limit: Int) async throws -> [Delivery]

    /// Removes the matching deliveries; returns how many.
    @discardableResult
    func remove(_ filter: DeliveryFilter) async throws -> Int

    /// Removes every delivery (ids keep increasing).
    func clear() async throws

    /// The id of the newest delivery recorded so far (0 before the first): the cursor that means
    /// "from now on".
    func newestID() async throws -> UInt64

    /// Waits until `count` deliveries matching `filter` exist (those already kept count), or until
    /// `timeout`; true when they do. Cancelling the task ends the wait with false.
    func wait(for filter: DeliveryFilter, count: Int, timeout: Duration) async throws -> Bool

    /// Size and eviction counters, for `/metrics`.
    func statistics() async -> DeliveryStoreStatistics

    /// Writes whatever is queued and releases the storage (graceful shutdown); the store records
    /// nothing more.
    func close() async throws
}

extension DeliveryStore {
    /// Nothing to write or release.
    public func close() async throws {}

    /// One delivery at a time.
    public func recordRelay(_ result: RelayResult, forDeliveries ids: ClosedRange<UInt64>) {
        for id in ids { recordRelay(result, forDelivery: id) }
    }

    public func clear() async throws {
        try await remove(DeliveryFilter())
    }

    /// Every delivery matching `filter` with an id greater than `cursor`, oldest first, and then each
    /// one as it is recorded, until the task is cancelled.
    public func events(after cursor: UInt64, matching filter: DeliveryFilter = DeliveryFilter()) -> DeliveryEvents {
        DeliveryEvents(store: self, cursor: cursor, filter: filter)
    }
}

/// One page of a query.
public struct DeliveryPage: Sendable {
    /// Matching deliveries, newest first.
    public var deliveries: [Delivery]
    /// How many match in all.
    public var total: Int

    /// Creates a page.
    public init(deliveries: [Delivery], total: Int) {
        self.deliveries = deliveries
        self.total = total
    }
}

/// What `/metrics` shows about a store.
public struct DeliveryStoreStatistics: Sendable, Hashable {
    /// Deliveries kept now.
    public var count: Int
    /// Deliveries evicted by retention since the start.
    public var evicted: UInt64
    /// Waits registered now (long-polls, event streams' hub).
    public var waiters: Int
    /// Deliveries answered but not kept because the store's write queue was full (`pushmock_store_dropped_total`).
    public var dropped: UInt64 = 0
    /// Deliveries recorded and not yet written (a store that writes behind).
    public var queued: Int = 0
    /// Why the last write failed, while writes are failing.
    public var failure: String?

    /// Creates statistics.
    public init(count: Int, evicted: UInt64, waiters: Int) {
        self.count = count
        self.evicted = evicted
        self.waiters = waiters
    }
}
