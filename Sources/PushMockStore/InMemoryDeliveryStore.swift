public import PushMockCore
import Synchronization

/// Deliveries in memory, newest kept: a ring of `retention` entries. Recording takes a lock for
/// well under a microsecond and never blocks on readers for long (they copy what they match).
public final class InMemoryDeliveryStore: Sendable {
    private struct Waiter {
        var filter: DeliveryFilter
        var remaining: Int
        var callback: @Sendable () -> Void
    }

    private struct State {
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiter: UInt64 = 1
        var ring: [PackedDelivery] = []
        /// Index in `ring` of the oldest delivery once the ring is full.
        var head = 0
        var nextID: UInt64 = 1
        var evicted: UInt64 = 0
    }

    private let state = Mutex(State())
    private let waiterCount = Atomic<Int>(0)
    /// How many deliveries are kept; older ones are evicted first.
    public let retention: Int

    /// Creates a store keeping the newest `retention` deliveries.
    public init(retention: Int = 10_000) {
        precondition(retention > 0, "retention must be positive")
        self.retention = retention
    }

    /// Records a delivery, assigning its id, which is returned.
    @discardableResult
    public func record(_ delivery: Delivery) -> UInt64 {
        // Pack outside the lock; only the id and the slot are taken inside.
        var packed = PackedDelivery(delivery)
        var evicted: PackedDelivery?
        var fired: [@Sendable () -> Void] = []
        let waiting = waiterCount.load(ordering: .relaxed) > 0
        let id = state.withLock { state in
            packed.id = state.nextID
            if waiting {
                var recorded = delivery
                recorded.id = packed.id
                for (key, var waiter) in state.waiters where waiter.filter.matches(recorded) {
                    waiter.remaining -= 1
                    if waiter.remaining <= 0 {
                        fired.append(waiter.callback)
                        state.waiters[key] = nil
                    } else {
                        state.waiters[key] = waiter
                    }
                }
                waiterCount.store(state.waiters.count, ordering: .relaxed)
            }
            state.nextID += 1
            if state.ring.count < retention {
                state.ring.append(packed)
            } else {
                evicted = state.ring[state.head]
                state.ring[state.head] = packed
                state.head = (state.head + 1) % retention
                state.evicted += 1
            }
            return packed.id
        }
        _ = evicted  // freed here, outside the lock
        for callback in fired {
            callback()
        }
        return id
    }

    /// Calls `callback` once `count` deliveries matching `filter` exist (counting those already
    /// kept), from whichever thread records the last one; returns nil when they already exist, else
    /// a waiter id for ``cancelWait(_:)``. Costs recording nothing while nobody waits.
    public func wait(for filter: DeliveryFilter, count: Int, _ callback: @escaping @Sendable () -> Void) -> UInt64? {
        state.withLock { state in
            var existing = 0
            let ring = state.ring
            let total = ring.count
            for step in 0..<total {
                let packed = ring[(state.head + total - 1 - step) % total]
                if let after = filter.after, packed.id <= after { break }
                if filter.matches(packed.unpack()) { existing += 1 }
                if existing >= count { return nil }
            }
            let id = state.nextWaiter
            state.nextWaiter += 1
            state.waiters[id] = Waiter(filter: filter, remaining: count - existing, callback: callback)
            waiterCount.store(state.waiters.count, ordering: .relaxed)
            return id
        }
    }

    /// Forgets a waiter (at its timeout).
    public func cancelWait(_ id: UInt64) {
        state.withLock { state in
            state.waiters[id] = nil
            waiterCount.store(state.waiters.count, ordering: .relaxed)
        }
    }

    /// Waiters registered now.
    public var waitingCount: Int { waiterCount.load(ordering: .relaxed) }

    /// Deliveries kept now.
    public var count: Int { state.withLock { $0.ring.count } }

    /// Deliveries evicted by retention since the start.
    public var evictedCount: UInt64 { state.withLock { $0.evicted } }

    /// The id the next delivery will get.
    public var nextID: UInt64 { state.withLock { $0.nextID } }

    /// The delivery with `id`, if still kept.
    public func delivery(id: UInt64) -> Delivery? {
        state.withLock { state in
            // Ids increase from the oldest entry on, with gaps after removals: binary search.
            let count = state.ring.count
            var low = 0
            var high = count
            while low < high {
                let middle = (low + high) / 2
                let candidate = state.ring[(state.head + middle) % count]
                if candidate.id == id { return candidate.unpack() }
                if candidate.id < id { low = middle + 1 } else { high = middle }
            }
            return nil
        }
    }

    /// Matching deliveries, newest first, at most `limit`, and how many match in all.
    public func query(_ filter: DeliveryFilter, limit: Int) -> (deliveries: [Delivery], total: Int) {
        // Copy the ring (cheap: one reference per entry) and unpack outside the lock.
        let (ring, head) = state.withLock { ($0.ring, $0.head) }
        var result: [Delivery] = []
        var total = 0
        let count = ring.count
        for step in 0..<count {
            let packed = ring[(head + count - 1 - step) % count]
            if let after = filter.after, packed.id <= after { break }
            if let before = filter.before, packed.id >= before { continue }
            let delivery = packed.unpack()
            guard filter.matches(delivery) else { continue }
            total += 1
            if result.count < limit { result.append(delivery) }
        }
        return (result, total)
    }

    /// Matching deliveries with an id greater than `after`, oldest first, at most `limit`: what an
    /// event stream sends next.
    public func deliveries(after: UInt64, matching filter: DeliveryFilter, limit: Int) -> [Delivery] {
        let (ring, head) = state.withLock { ($0.ring, $0.head) }
        let count = ring.count
        // Ids increase from the oldest entry on: find the first one past the cursor.
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if ring[(head + middle) % count].id <= after { low = middle + 1 } else { high = middle }
        }
        var result: [Delivery] = []
        var index = low
        while index < count, result.count < limit {
            let delivery = ring[(head + index) % count].unpack()
            if filter.matches(delivery) { result.append(delivery) }
            index += 1
        }
        return result
    }

    /// Removes the matching deliveries (all of them for an empty filter); returns how many.
    @discardableResult
    public func remove(_ filter: DeliveryFilter = DeliveryFilter()) -> Int {
        state.withLock { state in
            let ordered = Self.ordered(state)
            let kept = filter == DeliveryFilter() ? [] : ordered.filter { !filter.matches($0.unpack()) }
            state.ring = kept
            state.head = 0
            return ordered.count - kept.count
        }
    }

    private static func ordered(_ state: State) -> [PackedDelivery] {
        Array(state.ring[state.head...] + state.ring[..<state.head])
    }
}
