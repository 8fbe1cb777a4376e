public import PushMockCore

/// The deliveries of a store from a cursor on, as they are recorded (``DeliveryStore/events(after:matching:)``).
public struct DeliveryEvents: AsyncSequence, Sendable {
    public typealias Element = Delivery

    let store: any DeliveryStore
    let cursor: UInt64
    let filter: DeliveryFilter

    /// Deliveries read per query.
    static let batchSize = 256

    public func makeAsyncIterator() -> Iterator {
        Iterator(store: store, cursor: cursor, filter: filter)
    }

    /// Reads a batch at a time; waits on the store when it has read everything.
    public struct Iterator: AsyncIteratorProtocol {
        let store: any DeliveryStore
        var cursor: UInt64
        let filter: DeliveryFilter
        var buffer: [Delivery] = []
        var index = 0

        public mutating func next() async throws -> Delivery? {
            while !Task.isCancelled {
                if index < buffer.count {
                    defer { index += 1 }
                    return buffer[index]
                }
                let horizon = try await store.newestID()
                buffer = try await store.deliveries(after: cursor, matching: filter, limit: DeliveryEvents.batchSize)
                index = 0
                if let last = buffer.last {
                    cursor = last.id
                    continue
                }
                cursor = Swift.max(cursor, horizon)
                var next = filter
                next.after = cursor
                _ = try await store.wait(for: next, count: 1, timeout: .seconds(60))
            }
            return nil
        }
    }
}
