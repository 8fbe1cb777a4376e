import NIOCore
import PushMockCore
import PushMockInspection
import PushMockStore
import PushMockTransport
import Synchronization

/// `GET /api/v1/events`: Server-Sent Events of recorded deliveries matching a filter, oldest first,
/// each with its delivery id as the event id, so `Last-Event-ID` resumes exactly after the last
/// event a client saw. Woken by recording through the store's waiters (no polling loop); a comment
/// line every `keepAlive` keeps proxies from closing an idle stream and notices a vanished client.
///
/// ```
/// id: 42
/// event: delivery
/// data: {"id":42,"service":"apns",…}
/// ```
final class EventStream: Sendable {
    /// What every event stream of one server shares: the subscriber count and cap, and each
    /// delivery's events encoded once (issue 10: encoding per subscriber cost ~0.9 ms each, so 500
    /// subscribers took a push's p50 from 11 ms to 306 ms).
    final class Hub: Sendable {
        /// Open streams at most; one more gets 503.
        let maxSubscribers: Int
        /// A subscriber whose unsent bytes pass this is closed; it resumes with Last-Event-ID.
        let maxBacklogBytes: Int
        private let subscribers = Atomic<Int>(0)
        private let encoded = Mutex(Encoded())

        private struct Encoded {
            var chunks: [UInt64: [UInt8]] = [:]
            var newest: UInt64 = 0
        }

        /// Encoded chunks kept (the newest ids); older ones are encoded again if a late reader asks.
        static let cacheSize: UInt64 = 4096

        init(maxSubscribers: Int, maxBacklogBytes: Int = 8 << 20) {
            self.maxSubscribers = maxSubscribers
            self.maxBacklogBytes = maxBacklogBytes
        }

        /// Open streams now.
        var count: Int { subscribers.load(ordering: .relaxed) }

        /// Takes a subscriber slot; false when all are taken.
        func join() -> Bool {
            while true {
                let current = subscribers.load(ordering: .relaxed)
                guard current < maxSubscribers else { return false }
                if subscribers.compareExchange(expected: current, desired: current + 1, ordering: .relaxed).exchanged { return true }
            }
        }

        func leave() { subscribers.subtract(1, ordering: .relaxed) }

        /// The SSE chunk of `delivery` (its delivery event and any activity events), encoded once
        /// for every subscriber.
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

    private let store: InMemoryDeliveryStore
    private let filter: DeliveryFilter
    private let writer: ResponseBodyWriter
    private let state: Mutex<State>
    private let hub: Hub
    private let reveal: Bool

    private struct State {
        var cursor: UInt64
        var waiter: UInt64?
    }

    /// Deliveries sent per batch before yielding the event loop.
    static let batchSize = 256

    private init(store: InMemoryDeliveryStore, filter: DeliveryFilter, cursor: UInt64, writer: ResponseBodyWriter, hub: Hub, reveal: Bool) {
        self.store = store
        self.filter = filter
        self.writer = writer
        self.state = Mutex(State(cursor: cursor))
        self.hub = hub
        self.reveal = reveal
    }

    /// Starts streaming into `writer` from `cursor` (exclusive). The caller took a slot with
    /// ``Hub/join()``; it is given back when the stream ends.
    static func start(store: InMemoryDeliveryStore, filter: DeliveryFilter, cursor: UInt64, writer: ResponseBodyWriter, keepAlive: TimeAmount, hub: Hub, reveal: Bool = false) {
        var filter = filter
        filter.after = nil
        let stream = EventStream(store: store, filter: filter, cursor: cursor, writer: writer, hub: hub, reveal: reveal)
        writer.write(Array("retry: 1000\n: PushMock event stream, resuming after delivery \(cursor)\n\n".utf8))
        let keepAliveTask = writer.eventLoop.scheduleRepeatedTask(initialDelay: keepAlive, delay: keepAlive) { _ in
            writer.write(Array(": keep-alive\n\n".utf8))
        }
        writer.onClose { stream.stop(keepAlive: keepAliveTask) }
        stream.pump()
    }

    private func stop(keepAlive: RepeatedTask) {
        keepAlive.cancel()
        hub.leave()
        let waiter = state.withLock { state -> UInt64? in
            defer { state.waiter = nil }
            return state.waiter
        }
        if let waiter { store.cancelWait(waiter) }
    }

    /// Sends what is new since the cursor, then waits for the next matching delivery.
    private func pump() {
        guard !writer.isClosed else { return }
        let cursor = state.withLock { $0.cursor }
        let batch = store.deliveries(after: cursor, matching: filter, limit: Self.batchSize)
        if let last = batch.last {
            if writer.backlog > hub.maxBacklogBytes {
                // Too far behind (a reader that does not read): closed, so that it cannot hold
                // memory or time; it resumes exactly where it was with Last-Event-ID.
                writer.write(Array(": closed: this reader fell more than \(hub.maxBacklogBytes) bytes behind; reconnect with Last-Event-ID \(cursor)\n\n".utf8))
                writer.finish()
                return
            }
            var chunk: [UInt8] = []
            for delivery in batch {
                chunk += reveal ? Self.chunk(for: delivery, reveal: true) : hub.chunk(for: delivery)
            }
            writer.write(chunk)
            state.withLock { $0.cursor = last.id }
            if batch.count == Self.batchSize {
                writer.eventLoop.execute { self.pump() }
                return
            }
        }
        var next = filter
        next.after = batch.last?.id ?? cursor
        let waiter = store.wait(for: next, count: 1) { [self] in
            writer.eventLoop.execute { self.pump() }
        }
        guard let waiter else {
            writer.eventLoop.execute { self.pump() }
            return
        }
        state.withLock { $0.waiter = waiter }
        if writer.isClosed {
            store.cancelWait(waiter)
        }
    }

    /// A delivery's events in the SSE wire format.
    static func chunk(for delivery: Delivery, reveal: Bool) -> [UInt8] {
        var chunk = event(id: delivery.id, type: "delivery", json: InspectionAPI.json(delivery, reveal: reveal))
        for activity in activityEvents(delivery) {
            chunk += event(id: delivery.id, type: "activity", json: activity)
        }
        return chunk
    }

    /// The Live Activity events a delivery caused: a simulated device issuing an activity push
    /// token (as the app would report it to its server), and what the device did with the push.
    static func activityEvents(_ delivery: Delivery) -> [[UInt8]] {
        guard let activityID = delivery.activityID else { return [] }
        var events: [[UInt8]] = []
        if let token = delivery.issuedActivityToken {
            var attributesType = "null"
            if case .string(let type)? = JSONValue.parse(delivery.body)?["aps"]?["attributes-type"] {
                attributesType = "\"\(JSONText.escape(type))\""
            }
            events.append(Array(#"{"type":"activityTokenIssued","activityToken":"\#(token)","pushToStartToken":"\#(JSONText.escape(delivery.deviceToken ?? ""))","attributesType":\#(attributesType),"deliveryId":\#(delivery.id)}"#.utf8))
        }
        let outcome = delivery.outcome == .dropped ? "dropped" : "applied"
        let reason = delivery.outcome == .dropped ? "\"\(JSONText.escape(delivery.reason ?? ""))\"" : "null"
        events.append(Array(#"{"type":"activityPush","activityId":"\#(JSONText.escape(activityID))","deviceOutcome":"\#(outcome)","dropReason":\#(reason),"deliveryId":\#(delivery.id)}"#.utf8))
        return events
    }

    /// One event in the SSE wire format.
    static func event(id: UInt64, type: String, json: [UInt8]) -> [UInt8] {
        Array("id: \(id)\nevent: \(type)\ndata: ".utf8) + json + Array("\n\n".utf8)
    }
}
