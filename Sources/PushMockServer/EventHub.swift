import NIOCore
import PushMockCore
import PushMockStore
import Synchronization

/// What every event stream of one server shares (issue 10, defect 6: 500 subscribers took a push's
/// p50 from 11 ms to 306 ms):
///
/// - **One waiter.** The store wakes the hub, not each stream: recording a delivery costs one
///   filter match and one hop, however many streams are open. The hub reads the new deliveries
///   once and hands them to every stream on one event loop, ``coalescing`` after the first of them
///   was recorded: well after the push has been answered, and in batches under load.
/// - **Encoded once.** Each delivery's SSE bytes are encoded for the first stream and shared.
/// - **A cap** on open streams, and a backlog bound past which a reader that does not read is
///   closed (it resumes with `Last-Event-ID`).
final class EventHub: Sendable {
    /// Open streams at most; one more gets 503.
    let maxSubscribers: Int
    /// A stream whose unsent bytes pass this is closed.
    let maxBacklogBytes: Int
    private let store: InMemoryDeliveryStore
    private let slots = Atomic<Int>(0)
    private let state = Mutex(State())
    private let encoded = Mutex(Encoded())

    private struct State {
        var streams: [ObjectIdentifier: EventStream] = [:]
        /// The newest delivery handed to the streams.
        var cursor: UInt64 = 0
        /// Waiting for the store (set before the waiter exists, so that a waiter firing at once is
        /// never mistaken for one still pending).
        var armed = false
        /// The store waiter while armed, once registered.
        var waiter: UInt64?
        var loop: (any EventLoop)?
    }

    private struct Encoded {
        var chunks: [UInt64: [UInt8]] = [:]
        var newest: UInt64 = 0
    }

    /// Encoded chunks kept (the newest ids); older ones are encoded again if a late reader asks.
    static let cacheSize: UInt64 = 4096

    init(store: InMemoryDeliveryStore, maxSubscribers: Int, maxBacklogBytes: Int = 8 << 20) {
        self.store = store
        self.maxSubscribers = maxSubscribers
        self.maxBacklogBytes = maxBacklogBytes
    }

    // MARK: Slots

    /// Open streams now.
    var count: Int { slots.load(ordering: .relaxed) }

    /// Takes a slot; false when all are taken.
    func join() -> Bool {
        while true {
            let current = slots.load(ordering: .relaxed)
            guard current < maxSubscribers else { return false }
            if slots.compareExchange(expected: current, desired: current + 1, ordering: .relaxed).exchanged { return true }
        }
    }

    // MARK: Streams

    /// Starts handing new deliveries to `stream`; the first stream arms the hub on `loop`.
    func add(_ stream: EventStream, loop: any EventLoop) {
        let arm = state.withLock { state -> Bool in
            state.streams[ObjectIdentifier(stream)] = stream
            guard state.loop == nil else { return false }
            state.loop = loop
            state.cursor = store.nextID - 1
            return true
        }
        if arm { self.arm() }
    }

    /// Stops handing deliveries to `stream` and gives its slot back (called once, when it closes).
    func remove(_ stream: EventStream) {
        slots.subtract(1, ordering: .relaxed)
        let waiter = state.withLock { state -> UInt64? in
            state.streams[ObjectIdentifier(stream)] = nil
            guard state.streams.isEmpty else { return nil }
            defer { state.waiter = nil; state.loop = nil; state.armed = false }
            return state.waiter
        }
        if let waiter { store.cancelWait(waiter) }
    }

    /// Registers the one store waiter: the next delivery after the cursor wakes the hub.
    private func arm() {
        let after = state.withLock { state -> UInt64 in
            state.armed = true
            return state.cursor
        }
        var filter = DeliveryFilter()
        filter.after = after
        let waiter = store.wait(for: filter, count: 1) { [self] in wake() }
        guard let waiter else {
            wake()  // already there
            return
        }
        let stale = state.withLock { state -> Bool in
            // Fired already (then the store forgot it), or the last stream left meanwhile.
            guard state.armed, state.loop != nil else { return state.loop == nil }
            state.waiter = waiter
            return false
        }
        if stale { store.cancelWait(waiter) }
    }

    /// How long the hub lets deliveries gather before it hands them out: the writes to every
    /// stream then happen well after the push was answered (never competing with its client for
    /// the CPU), and under load one write per stream carries many events.
    static let coalescing = TimeAmount.milliseconds(15)

    /// From the recording thread: one hop to the hub's loop, whatever the number of streams.
    private func wake() {
        let loop = state.withLock { state -> (any EventLoop)? in
            state.armed = false
            state.waiter = nil
            return state.loop
        }
        loop?.scheduleTask(in: Self.coalescing) { self.fanOut() }
    }

    /// Reads what is new once, re-arms (so nothing recorded from now on is missed), then hands it
    /// to every stream.
    private func fanOut() {
        let (previous, streams) = state.withLock { ($0.cursor, Array($0.streams.values)) }
        guard !streams.isEmpty else { return }
        let fresh = store.deliveries(after: previous, matching: DeliveryFilter(), limit: EventStream.batchSize)
        let rearm = state.withLock { state -> Bool in
            state.cursor = fresh.last?.id ?? previous
            return state.loop != nil && !state.armed
        }
        if rearm { arm() }
        for stream in streams {
            stream.deliver(fresh, after: previous)
        }
    }

    // MARK: Encoding

    /// The SSE chunk of `delivery` (its delivery event and any activity events), encoded once
    /// for every stream.
    func chunk(for delivery: Delivery) -> [UInt8] {
        if let cached = encoded.withLock({ $0.chunks[delivery.id] }) { return cached }
        let chunk = EventStream.chunk(for: delivery, reveal: false)
        encoded.withLock { state in
            state.chunks[delivery.id] = chunk
            if delivery.id > state.newest { state.newest = delivery.id }
            if UInt64(state.chunks.count) > Self.cacheSize * 2 {
                let floor = state.newest > Self.cacheSize ? state.newest - Self.cacheSize : 0
                state.chunks = state.chunks.filter { $0.key > floor }
            }
        }
        return chunk
    }
}
