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
    private let store: InMemoryDeliveryStore
    private let filter: DeliveryFilter
    private let writer: ResponseBodyWriter
    private let state: Mutex<State>

    private struct State {
        var cursor: UInt64
        var waiter: UInt64?
    }

    /// Deliveries sent per batch before yielding the event loop.
    static let batchSize = 256

    private init(store: InMemoryDeliveryStore, filter: DeliveryFilter, cursor: UInt64, writer: ResponseBodyWriter) {
        self.store = store
        self.filter = filter
        self.writer = writer
        self.state = Mutex(State(cursor: cursor))
    }

    /// Starts streaming into `writer` from `cursor` (exclusive).
    static func start(store: InMemoryDeliveryStore, filter: DeliveryFilter, cursor: UInt64, writer: ResponseBodyWriter, keepAlive: TimeAmount) {
        var filter = filter
        filter.after = nil
        let stream = EventStream(store: store, filter: filter, cursor: cursor, writer: writer)
        writer.write(Array("retry: 1000\n: PushMock event stream, resuming after delivery \(cursor)\n\n".utf8))
        let keepAliveTask = writer.eventLoop.scheduleRepeatedTask(initialDelay: keepAlive, delay: keepAlive) { _ in
            writer.write(Array(": keep-alive\n\n".utf8))
        }
        writer.onClose { stream.stop(keepAlive: keepAliveTask) }
        stream.pump()
    }

    private func stop(keepAlive: RepeatedTask) {
        keepAlive.cancel()
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
            var chunk: [UInt8] = []
            for delivery in batch {
                chunk += Self.event(id: delivery.id, type: "delivery", json: InspectionAPI.json(delivery))
                for activity in Self.activityEvents(delivery) {
                    chunk += Self.event(id: delivery.id, type: "activity", json: activity)
                }
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
