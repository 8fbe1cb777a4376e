import PushMockBytes
public import PushMockCore
import Synchronization

/// Deliveries in memory, newest kept: a ring of `retention` entries. Recording takes a lock for
/// well under a microsecond; readers copy the ring (one reference per entry) under the lock and
/// unpack what they match outside it.
public final class InMemoryDeliveryStore: DeliveryStore {
    private struct State {
        var waiters = WaiterTable()
        var ring: [CompactDelivery] = []
        /// Index in `ring` of the oldest delivery once the ring is full.
        var head = 0
        var nextID: UInt64 = 1
        var evicted: UInt64 = 0
        /// The shared fields each connection last recorded (by its id, modulo the slots), and
        /// what they were packed from: a delivery with the same ones shares them instead of
        /// keeping a copy, and one made of the same strings as last time is not packed at all.
        var shared = SharedSlots()
        /// What relay upstreams answered, slot for slot with `ring` (empty until the first answer:
        /// a store with no relay spends nothing on it). An evicted delivery's answer goes with it.
        var relays: [RelayResult?] = []

        /// The ring oldest first.
        var ordered: [CompactDelivery] { Array(ring[head...] + ring[..<head]) }
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

    @discardableResult
    public func record(_ delivery: Delivery) -> UInt64 {
        guard waiterCount.load(ordering: .relaxed) > 0 else { return insert(delivery, notify: nil) }
        // Someone waits: the delivery, with its id, is counted for them under the same lock.
        return insert(delivery) { state, id in
            var recorded = delivery
            recorded.id = id
            return state.waiters.record(recorded)
        }
    }

    /// Packs `delivery`'s own part outside the lock; inside, only the id, the slot, the shared
    /// fields' lookup (most often: the same strings as the connection's last delivery) and
    /// `notify`, given the id. The lock's closure captures `delivery` as it is: lending it through
    /// `withUnsafePointer(to:)` copied its every field first, about 1 200 instructions a push
    /// (callgrind).
    private func insert(_ delivery: Delivery, notify: ((inout State, UInt64) -> [@Sendable () -> Void])?) -> UInt64 {
        var evicted: CompactDelivery?
        var evictedRelay: RelayResult?
        var fired: [@Sendable () -> Void] = []
        let fixed = CompactDelivery.Fixed(delivery)
        let retention = retention
        let layout = CompactDelivery.Layout(delivery)
        let own = OwnBytes.make(count: layout.ownSize) { layout.writeOwn(delivery, to: &$0) }
        let id = state.withLock { state in
            let id = state.nextID
            // A `let`, handed over whole: a `var` set field by field would be copied into the
            // ring and then destroyed (a retain and a release of each part).
            let packed = CompactDelivery(fixed, id: id, shared: state.shared.name(delivery, layout: layout, id: id).fields, own: own)
            if let notify {
                fired = notify(&state, id)
                waiterCount.store(state.waiters.count, ordering: .relaxed)
            }
            state.nextID += 1
            if state.ring.count < retention {
                state.ring.append(packed)
                if !state.relays.isEmpty { state.relays.append(nil) }
            } else {
                var replaced = packed
                swap(&replaced, &state.ring[state.head])
                if !state.relays.isEmpty { evictedRelay = state.relays[state.head].take() }
                evicted = replaced
                state.head = (state.head + 1) % retention
                state.evicted += 1
            }
            return id
        }
        _ = evicted  // freed here, outside the lock
        _ = evictedRelay
        for callback in fired {
            callback()
        }
        return id
    }

    public func recordRelay(_ result: RelayResult, forDelivery id: UInt64) {
        recordRelay(result, forDeliveries: id...id)
    }

    /// Deliveries per hold of the lock: a long run of `queue full` answers never keeps the push
    /// path waiting for more than a moment.
    private static let relayBatch = 1024

    public func recordRelay(_ result: RelayResult, forDeliveries ids: ClosedRange<UInt64>) {
        var next = ids.lowerBound
        while true {
            let done: Bool = state.withLock { state in
                let count = state.ring.count
                var offset = Self.offset(ofFirstAtLeast: next, in: state.ring, head: state.head)
                guard offset < count else { return true }
                if state.relays.isEmpty { state.relays = Array(repeating: nil, count: count) }
                for _ in 0..<Self.relayBatch {
                    guard offset < count else { return true }
                    let slot = (state.head + offset) % count
                    let id = state.ring[slot].id
                    guard id <= ids.upperBound else { return true }
                    state.relays[slot] = result
                    offset += 1
                    if id == ids.upperBound { return true }
                    next = id + 1
                }
                return false
            }
            if done { return }
        }
    }

    /// The index in `ring` of delivery `id`, if kept.
    private static func slot(of id: UInt64, in ring: [CompactDelivery], head: Int) -> Int? {
        let offset = offset(ofFirstAtLeast: id, in: ring, head: head)
        guard offset < ring.count else { return nil }
        let slot = (head + offset) % ring.count
        return ring[slot].id == id ? slot : nil
    }

    /// How far from the oldest entry (at `head`) the first delivery with an id of `id` or more
    /// is (`ring.count`: none is). Ids increase from `head` on, with gaps after removals: a
    /// binary search.
    private static func offset(ofFirstAtLeast id: UInt64, in ring: [CompactDelivery], head: Int) -> Int {
        let count = ring.count
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if ring[(head + middle) % count].id < id { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The delivery in `slot`, unpacked, with its relay answer if there is one.
    private static func unpack(_ ring: [CompactDelivery], _ relays: [RelayResult?], slot: Int) -> Delivery {
        var delivery = ring[slot].unpack()
        if !relays.isEmpty { delivery.relay = relays[slot] }
        return delivery
    }

    // MARK: Waiting

    /// Calls `callback` once `count` deliveries matching `filter` exist (counting those already
    /// kept), from whichever thread records the last one; returns nil when they already exist, else
    /// a waiter id for ``cancelWait(_:)``. Costs recording nothing while nobody waits. The kept
    /// deliveries are counted outside the lock: the waiter is registered first, so a delivery
    /// recorded meanwhile is counted by `record`.
    func register(_ filter: DeliveryFilter, count: Int, _ callback: @escaping @Sendable () -> Void) -> UInt64? {
        // The ring is copied by reference (copy-on-write): nothing is walked under the lock.
        let (id, ring, head) = state.withLock { state -> (UInt64, [CompactDelivery], Int) in
            let id = state.waiters.add(filter, count: count, callback)
            waiterCount.store(state.waiters.count, ordering: .relaxed)
            return (id, state.ring, state.head)
        }
        var existing = 0
        let total = ring.count
        for step in 0..<total {
            let packed = ring[(head + total - 1 - step) % total]
            if let after = filter.after, packed.id <= after { break }
            if filter.matches(packed.unpack()) { existing += 1 }
            if existing >= count { break }
        }
        guard existing > 0 else { return id }
        let satisfied = state.withLock { state -> Bool in
            defer { waiterCount.store(state.waiters.count, ordering: .relaxed) }
            return state.waiters.credit(id, existing: existing)
        }
        return satisfied ? nil : id
    }

    /// Forgets a waiter (at its timeout).
    func cancelWait(_ id: UInt64) {
        state.withLock { state in
            state.waiters.remove(id)
            waiterCount.store(state.waiters.count, ordering: .relaxed)
        }
    }

    public func wait(for filter: DeliveryFilter, count: Int, timeout: Duration) async throws -> Bool {
        let signal = WaitSignal()
        guard let waiter = register(filter, count: count, { signal.finish(true) }) else { return true }
        return await signal.result(timeout: timeout) { self.cancelWait(waiter) }
    }

    // MARK: Reading

    public func statistics() async -> DeliveryStoreStatistics {
        state.withLock { DeliveryStoreStatistics(count: $0.ring.count, evicted: $0.evicted, waiters: $0.waiters.count) }
    }

    public func newestID() async throws -> UInt64 {
        state.withLock { $0.nextID - 1 }
    }

    public func delivery(id: UInt64) async throws -> Delivery? {
        let (ring, relays, slot) = state.withLock { state in (state.ring, state.relays, Self.slot(of: id, in: state.ring, head: state.head)) }
        return slot.map { Self.unpack(ring, relays, slot: $0) }
    }

    public func query(_ filter: DeliveryFilter, limit: Int) async throws -> DeliveryPage {
        let (ring, head, relays) = state.withLock { ($0.ring, $0.head, $0.relays) }
        var result: [Delivery] = []
        var total = 0
        let count = ring.count
        for step in 0..<count {
            let slot = (head + count - 1 - step) % count
            let packed = ring[slot]
            if let after = filter.after, packed.id <= after { break }
            if let before = filter.before, packed.id >= before { continue }
            let delivery = Self.unpack(ring, relays, slot: slot)
            guard filter.matches(delivery) else { continue }
            total += 1
            if result.count < limit { result.append(delivery) }
        }
        return DeliveryPage(deliveries: result, total: total)
    }

    public func deliveries(after cursor: UInt64, matching filter: DeliveryFilter, limit: Int) async throws -> [Delivery] {
        let (ring, head, relays) = state.withLock { ($0.ring, $0.head, $0.relays) }
        let count = ring.count
        // Ids increase from the oldest entry on: find the first one past the cursor.
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if ring[(head + middle) % count].id <= cursor { low = middle + 1 } else { high = middle }
        }
        var result: [Delivery] = []
        var index = low
        while index < count, result.count < limit {
            let delivery = Self.unpack(ring, relays, slot: (head + index) % count)
            if filter.matches(delivery) { result.append(delivery) }
            index += 1
        }
        return result
    }

    @discardableResult
    public func remove(_ filter: DeliveryFilter) async throws -> Int {
        if filter == DeliveryFilter() {
            let removed = state.withLock { state -> [CompactDelivery] in
                defer {
                    state.ring = []
                    state.head = 0
                    state.relays = []
                }
                return state.ring
            }
            return removed.count
        }
        // Match outside the lock, then remove exactly those ids: deliveries recorded meanwhile stay.
        let (snapshot, relays) = state.withLock { ($0.ring, $0.relays) }
        var doomed = Set<UInt64>()
        for slot in snapshot.indices where filter.matches(Self.unpack(snapshot, relays, slot: slot)) {
            doomed.insert(snapshot[slot].id)
        }
        guard !doomed.isEmpty else { return 0 }
        return state.withLock { state in
            let before = state.ring.count
            if !state.relays.isEmpty {
                let relays = Array(state.relays[state.head...] + state.relays[..<state.head])
                state.relays = zip(state.ordered, relays).filter { !doomed.contains($0.0.id) }.map(\.1)
            }
            state.ring = state.ordered.filter { !doomed.contains($0.id) }
            state.head = 0
            return before - state.ring.count
        }
    }
}

/// A one-shot Bool handed from a store waiter (any thread) to the task awaiting it.
package final class WaitSignal: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Bool, Never>?)
        case finished(Bool)
    }

    private let state = Mutex(State.waiting(nil))

    package init() {}

    package func finish(_ value: Bool) {
        let continuation = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard case .waiting(let continuation) = state else { return nil }
            state = .finished(value)
            return continuation
        }
        continuation?.resume(returning: value)
    }

    /// Waits for the signal until `timeout`; `cancel` forgets the waiter when the wait ends without
    /// it (timeout or task cancellation, at once from the cancelling thread).
    package func result(timeout: Duration, cancel: @escaping @Sendable () -> Void) async -> Bool {
        let timer = Task {
            try? await Task.sleep(for: timeout)
            self.finish(false)
        }
        let found = await withTaskCancellationHandler {
            await value()
        } onCancel: {
            self.finish(false)
            cancel()
        }
        timer.cancel()
        if !found { cancel() }
        return found
    }

    package func value() async -> Bool {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool? in
                switch state {
                case .finished(let value): return value
                case .waiting:
                    state = .waiting(continuation)
                    return nil
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
