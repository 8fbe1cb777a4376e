import PushMockCore
import PushMockStore
import Synchronization

/// `GET /api/v1/events`: Server-Sent Events of recorded deliveries matching a filter, oldest first,
/// each with its delivery id as the event id, so `Last-Event-ID` resumes exactly after the last
/// event a client saw. Fed by its ``EventHub`` (one store waiter for every stream, no polling
/// loop); a comment line every `keepAlive` keeps proxies from closing an idle stream and notices a
/// vanished client.
///
/// ```
/// id: 42
/// event: delivery
/// data: {"id":42,"service":"apns",…}
/// ```
final class EventStream: Sendable {
    private let store: any DeliveryStore
    private let filter: DeliveryFilter
    private let sink: any EventSink
    private let hub: EventHub
    private let reveal: Bool
    /// Held while sending, so that the hub's fan-out and a catch-up never interleave.
    private let state: Mutex<State>

    private struct State {
        /// The id of the newest delivery this stream has seen (sent, or passed over by its filter).
        var cursor: UInt64
        /// A catch-up from the store is running; the hub's deliveries wait for it.
        var catchingUp = false
        /// The hub delivered during the catch-up: read once more.
        var again = false
    }

    /// Deliveries sent per batch.
    static let batchSize = 256

    private init(store: any DeliveryStore, filter: DeliveryFilter, cursor: UInt64, sink: any EventSink, hub: EventHub, reveal: Bool) {
        self.store = store
        self.filter = filter
        self.sink = sink
        self.state = Mutex(State(cursor: cursor))
        self.hub = hub
        self.reveal = reveal
    }

    /// Starts streaming into `sink` from `cursor` (exclusive). The caller took a slot with
    /// ``EventHub/join()``; it is given back when the stream ends.
    static func start(
        store: any DeliveryStore, filter: DeliveryFilter, cursor: UInt64, sink: any EventSink, keepAlive: Duration, hub: EventHub,
        reveal: Bool = false
    ) {
        var filter = filter
        filter.after = nil
        let stream = EventStream(store: store, filter: filter, cursor: cursor, sink: sink, hub: hub, reveal: reveal)
        sink.write(Array("retry: 1000\n: PushMock event stream, resuming after delivery \(cursor)\n\n".utf8))
        let keepAliveTask = Task {
            while true {
                try await Task.sleep(for: keepAlive)
                sink.write(Array(": keep-alive\n\n".utf8))
            }
        }
        sink.onClose {
            keepAliveTask.cancel()
            hub.remove(stream)
        }
        guard !sink.isClosed else { return }
        hub.add(stream)
        stream.catchUp()
    }

    /// The bytes written to this stream and not yet sent.
    var backlog: Int { sink.backlog }

    /// The hub's fan-out: `fresh` are the deliveries after `previous`, oldest first. A stream that
    /// is exactly there takes its matches from them (encoded once for all streams); any other
    /// catches up from the store on its own.
    func deliver(_ fresh: [Delivery], after previous: UInt64) {
        guard !sink.isClosed else { return }
        let behind = state.withLock { state -> Bool in
            if state.catchingUp {
                state.again = true
                return false
            }
            guard state.cursor == previous else {
                state.catchingUp = true
                return true
            }
            send(fresh.filter(filter.matches))
            state.cursor = fresh.last?.id ?? previous
            return false
        }
        if behind { Task { await readFromStore() } }
    }

    /// A `relay` event for delivery `id`, if this stream is past it (a stream still catching up
    /// reads the answer with the delivery).
    func deliverRelay(_ chunk: [UInt8], forDelivery id: UInt64) {
        guard !sink.isClosed else { return }
        state.withLock { state in
            guard !state.catchingUp, id <= state.cursor, !hub.isTooFarBehind(sink.backlog, adding: chunk.count) else { return }
            hub.handed(chunk.count)
            sink.write(chunk)
        }
    }

    /// Starts a catch-up unless one is running.
    private func catchUp() {
        let start = state.withLock { state -> Bool in
            guard !state.catchingUp else { return false }
            state.catchingUp = true
            return true
        }
        if start { Task { await readFromStore() } }
    }

    /// Sends what is new since the cursor, from the store, in batches.
    private func readFromStore() async {
        while !sink.isClosed {
            let cursor = state.withLock { state -> UInt64 in
                state.again = false
                return state.cursor
            }
            let horizon: UInt64
            let batch: [Delivery]
            do {
                // Every delivery up to `horizon` is in what the query reads right after.
                horizon = try await store.newestID()
                batch = try await store.deliveries(after: cursor, matching: filter, limit: Self.batchSize)
            } catch {
                sink.write(Array(": closed: the delivery store cannot answer now; reconnect with Last-Event-ID\n\n".utf8))
                sink.finish()
                return
            }
            let more = state.withLock { state -> Bool in
                send(batch)
                if batch.count == Self.batchSize, let last = batch.last {
                    state.cursor = last.id
                    return true
                }
                state.cursor = max(state.cursor, horizon)
                if state.again { return true }
                state.catchingUp = false
                return false
            }
            if !more { return }
        }
    }

    /// Writes `batch` (called with the state held); closes a reader that fell too far behind.
    private func send(_ batch: [Delivery]) {
        guard !batch.isEmpty, !sink.isClosed else { return }
        var chunk: [UInt8] = []
        for delivery in batch {
            chunk += reveal ? Self.chunk(for: delivery, reveal: true) : hub.chunk(for: delivery)
        }
        let backlog = sink.backlog
        if hub.isTooFarBehind(backlog, adding: chunk.count) {
            // A reader that does not read: closed, so that it cannot hold memory or time; it
            // resumes exactly where it was with Last-Event-ID.
            sink.write(Array(": closed: this reader fell \(backlog) bytes behind; reconnect with Last-Event-ID\n\n".utf8))
            sink.finish()
            return
        }
        hub.handed(chunk.count)
        sink.write(chunk)
    }

    /// A delivery's events in the SSE wire format.
    static func chunk(for delivery: Delivery, reveal: Bool) -> [UInt8] {
        var chunk = event(id: delivery.id, type: "delivery", json: InspectionResponse.encoded(DeliveryResource(delivery, reveal: reveal)))
        for activity in ActivityEvent.events(of: delivery) {
            chunk += event(id: delivery.id, type: "activity", json: InspectionResponse.encoded(activity))
        }
        return chunk
    }

    /// One event in the SSE wire format (an error event when its data could not be encoded).
    static func event(id: UInt64, type: String, json: [UInt8]?) -> [UInt8] {
        guard let json else {
            return Array("id: \(id)\nevent: error\ndata: {\"error\":\"could not encode delivery \(id)\"}\n\n".utf8)
        }
        return Array("id: \(id)\nevent: \(type)\ndata: ".utf8) + json + Array("\n\n".utf8)
    }
}
