import PushMockCore
import PushMockStore
import PushMockTestSupport
import Synchronization
import Testing

@testable import PushMockInspection

/// Many event streams whose readers never read must not hold more memory between them than the
/// hub's total bound (400 such streams OOM-killed the server, each under its own 8 MiB bound).
@Suite("Event streams: a bound on every stream's backlog together")
struct EventBacklogTests {
    /// A sink whose client reads everything (`reads`) or nothing.
    final class Sink: EventSink {
        private let state = Mutex<(written: Int, events: Int, closed: Bool, callbacks: [@Sendable () -> Void])>((0, 0, false, []))
        let reads: Bool

        init(reads: Bool) { self.reads = reads }

        func write(_ bytes: [UInt8]) {
            let events = String(decoding: bytes, as: UTF8.self).ranges(of: "event: delivery\n").count
            state.withLock { state in
                guard !state.closed else { return }
                state.written += bytes.count
                state.events += events
            }
        }
        func finish() {
            let callbacks = state.withLock { state -> [@Sendable () -> Void] in
                state.closed = true
                defer { state.callbacks = [] }
                return state.callbacks
            }
            for callback in callbacks { callback() }
        }
        func onClose(_ callback: @escaping @Sendable () -> Void) {
            let now = state.withLock { state -> Bool in
                if state.closed { return true }
                state.callbacks.append(callback)
                return false
            }
            if now { callback() }
        }
        var isClosed: Bool { state.withLock { $0.closed } }
        /// Delivery events written to it.
        var events: Int { state.withLock { $0.events } }
        var backlog: Int { reads ? 0 : state.withLock { $0.written } }
    }

    static func delivery(_ index: Int) -> Delivery {
        Delivery(
            receivedAt: 1_700_000_000_000 + Int64(index), connectionID: 1, httpVersion: "2", service: .apns, method: "POST",
            path: "/3/device/abc", headers: [HeaderField(name: "apns-topic", value: "com.example")],
            body: Array(String(repeating: "x", count: 4_000).utf8), outcome: .accepted, status: 200
        )
    }

    @Test("past the total bound, streams over their share are closed; a stream that reads stays open")
    func totalBound() async throws {
        let store = InMemoryDeliveryStore(retention: 10_000)
        let total = 256 << 10
        let hub = EventHub(store: store, maxSubscribers: 100, maxTotalBacklogBytes: total)
        let idle = (0..<20).map { _ in Sink(reads: false) }
        let reader = Sink(reads: true)
        for sink in idle + [reader] {
            #expect(hub.join())
            EventStream.start(store: store, filter: DeliveryFilter(), cursor: 0, sink: sink, keepAlive: .seconds(60), hub: hub)
        }
        var index = 0
        while idle.contains(where: { !$0.isClosed }), index < 400 {
            store.record(Self.delivery(index))
            index += 1
            // One delivery per hand-out: the next is recorded once the reader has this one.
            let handed = await eventually { reader.events >= index || reader.isClosed }
            try #require(handed, "delivery \(index) was never handed to the reader")
        }
        #expect(idle.allSatisfy { $0.isClosed }, "\(idle.filter { !$0.isClosed }.count) idle streams still open after \(index) deliveries")
        #expect(!reader.isClosed, "the stream that reads was closed")
        // Each idle stream was closed past its share: together they held the bound and at most one hand-out more each.
        let held = idle.reduce(0) { $0 + $1.backlog }
        #expect(held < total + idle.count * 64 << 10, "idle streams held \(held) bytes together")
        #expect(idle.allSatisfy { $0.backlog < 8 << 20 }, "the per-stream bound alone would have allowed 8 MiB each")
    }

    @Test("past the total bound, a stream is over its share with what it would be handed, even when it holds nothing; under it, nothing is")
    func shareCountsTheHandOut() {
        let hub = EventHub(store: InMemoryDeliveryStore(retention: 10), maxSubscribers: 100, maxTotalBacklogBytes: 256 << 10)
        for _ in 0..<20 { #expect(hub.join()) }
        let share = (256 << 10) / 20
        #expect(!hub.isTooFarBehind(share, adding: 64 << 10), "under the total bound nothing is too far behind")
        hub.handed(300 << 10)
        #expect(!hub.isTooFarBehind(share - (4 << 10), adding: 4 << 10), "its share exactly, with what it is handed")
        #expect(hub.isTooFarBehind(share - (4 << 10), adding: (4 << 10) + 1), "one byte past its share")
        #expect(hub.isTooFarBehind(0, adding: share + 1), "a hand-out larger than a share, to a stream that holds nothing")
        #expect(hub.isTooFarBehind(0, adding: (8 << 20) + 1), "past the per-stream bound")
    }
}
