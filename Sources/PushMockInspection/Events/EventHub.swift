import Foundation
import PushMockCore
import PushMockStore
import Synchronization

/// What every event stream of one server shares (issue 10, defect 6: 500 subscribers took a push's
/// p50 from 11 ms to 306 ms):
///
/// - **One waiter.** One task waits on the store for every stream, so recording a delivery costs
///   one filter match however many streams are open. It reads the new deliveries once and hands
///   them to every stream ``coalescing`` after the first of them was recorded: well after the push
///   was answered, and in batches under load.
/// - **Encoded once.** Each delivery's SSE bytes are encoded for the first stream and shared.
/// - **A cap** on open streams, and a backlog bound past which a reader that does not read is
///   closed (it resumes with `Last-Event-ID`).
/// - **A bound on every stream's backlog together** (``maxTotalBacklogBytes``): past it, a stream
///   that holds more than its share of it is closed the next time it is handed something, so
///   that many readers that never read cannot hold more than that bound between them.
final class EventHub: Sendable {
    /// Open streams at most; one more gets 503.
    let maxSubscribers: Int
    /// A stream whose unsent bytes pass this is closed.
    let maxBacklogBytes: Int
    /// Every stream's unsent bytes together: past this, a stream over its share is closed.
    let maxTotalBacklogBytes: Int
    /// Every stream's unsent bytes together, as the hub last counted them (before each hand-out).
    private let totalBacklog = Atomic<Int>(0)
    private let store: any DeliveryStore
    private let slots: SlotCounter
    private let state = Mutex(State())
    private let encoded = Mutex(Encoded())

    private struct State {
        var streams: [ObjectIdentifier: EventStream] = [:]
        /// The task waiting on the store while any stream is open.
        var task: Task<Void, Never>?
    }

    private struct Encoded {
        var chunks: [UInt64: [UInt8]] = [:]
        var newest: UInt64 = 0
    }

    /// Encoded chunks kept (the newest ids); older ones are encoded again if a late reader asks.
    static let cacheSize: UInt64 = 4096

    /// How long the hub lets deliveries gather before it hands them out.
    static let coalescing = Duration.milliseconds(15)

    init(store: any DeliveryStore, maxSubscribers: Int, maxBacklogBytes: Int = 8 << 20, maxTotalBacklogBytes: Int = 64 << 20) {
        self.store = store
        self.maxSubscribers = maxSubscribers
        self.maxBacklogBytes = maxBacklogBytes
        self.maxTotalBacklogBytes = maxTotalBacklogBytes
        slots = SlotCounter(limit: maxSubscribers)
    }

    /// Whether a stream with `backlog` unsent bytes is too far behind to be handed `more`: past
    /// the per-stream bound, or over its share while all streams together would be past theirs.
    /// What it would be handed counts: a stream that holds nothing is closed too when one hand-out
    /// is larger than its share then (it resumes with `Last-Event-ID`). Sparing such streams let
    /// 200 readers that never read hold 700 MB instead of 140-200 MB (`scripts/attacks`), since
    /// theirs also hold nothing until the socket's buffers are full.
    func isTooFarBehind(_ backlog: Int, adding more: Int) -> Bool {
        if backlog + more > maxBacklogBytes { return true }
        guard totalBacklog.load(ordering: .relaxed) + more > maxTotalBacklogBytes else { return false }
        return backlog + more > maxTotalBacklogBytes / max(1, count)
    }

    /// Counts `bytes` just handed to a stream in the total until the next hand-out measures it
    /// again (so that one hand-out to many streams cannot overshoot the bound by much).
    func handed(_ bytes: Int) {
        totalBacklog.add(bytes, ordering: .relaxed)
    }

    /// Hands every open stream a `relay` event: what the relay's upstream answered to delivery
    /// `id`, which the stream sent (or passed over) before. It has no `id:` line, so a client's
    /// `Last-Event-ID` stays that of the last delivery.
    func announceRelay(_ result: RelayResult, forDelivery id: UInt64) {
        let streams = state.withLock { Array($0.streams.values) }
        guard !streams.isEmpty, let json = try? JSONEncoder().encode(RelayEvent(deliveryId: id, relay: result)) else { return }
        let chunk = Array("event: relay\ndata: ".utf8) + Array(json) + Array("\n\n".utf8)
        for stream in streams {
            stream.deliverRelay(chunk, forDelivery: id)
        }
    }

    // MARK: Slots

    /// Open streams now.
    var count: Int { slots.count }

    /// Takes a slot; false when all are taken.
    func join() -> Bool {
        slots.take()
    }

    // MARK: Streams

    /// Starts handing new deliveries to `stream`; the first stream starts the hub's task.
    func add(_ stream: EventStream) {
        state.withLock { state in
            state.streams[ObjectIdentifier(stream)] = stream
            if state.task == nil {
                state.task = Task { [self] in await run() }
            }
        }
    }

    /// Stops handing deliveries to `stream` and gives its slot back (called once, when it closes).
    func remove(_ stream: EventStream) {
        slots.giveBack()
        let task = state.withLock { state -> Task<Void, Never>? in
            state.streams[ObjectIdentifier(stream)] = nil
            guard state.streams.isEmpty else { return nil }
            defer { state.task = nil }
            return state.task
        }
        task?.cancel()
    }

    /// Waits for what is new, lets more gather, reads it once and hands it to every stream.
    private func run() async {
        var cursor = (try? await store.newestID()) ?? 0
        while !Task.isCancelled {
            var next = DeliveryFilter()
            next.after = cursor
            do {
                guard try await store.wait(for: next, count: 1, timeout: .seconds(30)) else { continue }
                try await Task.sleep(for: Self.coalescing)
                let fresh = try await store.deliveries(after: cursor, matching: DeliveryFilter(), limit: EventStream.batchSize)
                let streams = state.withLock { Array($0.streams.values) }
                totalBacklog.store(streams.reduce(0) { $0 + $1.backlog }, ordering: .relaxed)
                for stream in streams {
                    stream.deliver(fresh, after: cursor)
                }
                cursor = fresh.last?.id ?? cursor
            } catch {
                // Cancelled, or a store that cannot answer now: try again in a second.
                try? await Task.sleep(for: .seconds(1))
            }
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

/// A count of things held at once (long-polls), with a cap.
final class SlotCounter: Sendable {
    let limit: Int
    private let taken = Atomic<Int>(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// Slots taken now.
    var count: Int { taken.load(ordering: .relaxed) }

    /// Takes a slot; false when all are taken.
    func take() -> Bool {
        while true {
            let current = taken.load(ordering: .relaxed)
            guard current < limit else { return false }
            if taken.compareExchange(expected: current, desired: current + 1, ordering: .relaxed).exchanged { return true }
        }
    }

    func giveBack() {
        taken.subtract(1, ordering: .relaxed)
    }
}
