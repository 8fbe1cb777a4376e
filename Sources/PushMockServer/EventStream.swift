import NIOCore
import PushMockCore
import PushMockInspection
import PushMockStore
import PushMockTransport
import Synchronization

/// `GET /api/v1/events`: Server-Sent Events of recorded deliveries matching a filter, oldest first,
/// each with its delivery id as the event id, so `Last-Event-ID` resumes exactly after the last
/// event a client saw. Woken by its ``EventHub`` (one store waiter for every stream, no polling
/// loop); a comment line every `keepAlive` keeps proxies from closing an idle stream and notices a
/// vanished client.
///
/// ```
/// id: 42
/// event: delivery
/// data: {"id":42,"service":"apns",…}
/// ```
final class EventStream: Sendable {
    private let store: InMemoryDeliveryStore
    private let filter: DeliveryFilter
    private let writer: ResponseBodyWriter
    /// The id of the newest delivery this stream has seen (sent, or passed over by its filter).
    /// Held while sending, so that the hub's fan-out and a catch-up never interleave.
    private let cursor: Mutex<UInt64>
    private let hub: EventHub
    private let reveal: Bool

    /// Deliveries sent per batch before yielding the event loop.
    static let batchSize = 256

    private init(store: InMemoryDeliveryStore, filter: DeliveryFilter, cursor: UInt64, writer: ResponseBodyWriter, hub: EventHub, reveal: Bool) {
        self.store = store
        self.filter = filter
        self.writer = writer
        self.cursor = Mutex(cursor)
        self.hub = hub
        self.reveal = reveal
    }

    /// Starts streaming into `writer` from `cursor` (exclusive). The caller took a slot with
    /// ``EventHub/join()``; it is given back when the stream ends.
    static func start(store: InMemoryDeliveryStore, filter: DeliveryFilter, cursor: UInt64, writer: ResponseBodyWriter, keepAlive: TimeAmount, hub: EventHub, reveal: Bool = false) {
        var filter = filter
        filter.after = nil
        let stream = EventStream(store: store, filter: filter, cursor: cursor, writer: writer, hub: hub, reveal: reveal)
        writer.write(Array("retry: 1000\n: PushMock event stream, resuming after delivery \(cursor)\n\n".utf8))
        let keepAliveTask = writer.eventLoop.scheduleRepeatedTask(initialDelay: keepAlive, delay: keepAlive) { _ in
            writer.write(Array(": keep-alive\n\n".utf8))
        }
        writer.onClose {
            keepAliveTask.cancel()
            hub.remove(stream)
        }
        guard !writer.isClosed else { return }
        hub.add(stream, loop: writer.eventLoop)
        stream.catchUp()
    }

    /// The hub's fan-out: `fresh` are every delivery after `previous`, oldest first. A stream that
    /// is exactly there takes its matches from them (encoded once for all streams); any other
    /// catches up from the store on its own.
    func deliver(_ fresh: [Delivery], after previous: UInt64) {
        guard !writer.isClosed else { return }
        let aligned = cursor.withLock { cursor -> Bool in
            guard cursor == previous else { return false }
            send(fresh.filter(filter.matches))
            cursor = fresh.last?.id ?? previous
            return true
        }
        if !aligned { catchUp() }
    }

    /// Sends what is new since the cursor, from the store, in batches.
    private func catchUp() {
        guard !writer.isClosed else { return }
        let more = cursor.withLock { cursor -> Bool in
            // Every delivery up to `horizon` is in the snapshot the query reads right after.
            let horizon = store.nextID - 1
            let batch = store.deliveries(after: cursor, matching: filter, limit: Self.batchSize)
            send(batch)
            if batch.count == Self.batchSize, let last = batch.last {
                cursor = last.id
                return true
            }
            cursor = max(cursor, horizon)
            return false
        }
        if more {
            writer.eventLoop.execute { self.catchUp() }
        }
    }

    /// Writes `batch` (called with the cursor held); closes a reader that fell too far behind.
    private func send(_ batch: [Delivery]) {
        guard !batch.isEmpty, !writer.isClosed else { return }
        if writer.backlog > hub.maxBacklogBytes {
            // A reader that does not read: closed, so that it cannot hold memory or time; it
            // resumes exactly where it was with Last-Event-ID.
            writer.write(Array(": closed: this reader fell more than \(hub.maxBacklogBytes) bytes behind; reconnect with Last-Event-ID\n\n".utf8))
            writer.finish()
            return
        }
        var chunk: [UInt8] = []
        for delivery in batch {
            chunk += reveal ? Self.chunk(for: delivery, reveal: true) : hub.chunk(for: delivery)
        }
        writer.write(chunk)
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
