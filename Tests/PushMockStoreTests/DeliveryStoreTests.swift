import Foundation
import PushMockCore
import PushMockPostgres
import PushMockSQLite
import PushMockStore
import PushMockTestSupport
import Testing

/// The contract every ``DeliveryStore`` keeps; `Kind` lists the implementations, so a new store
/// runs the same suite by adding a case.
@Suite("A delivery store")
struct DeliveryStoreTests {
    /// Every implementation.
    enum Kind: String, CaseIterable, Sendable {
        case memory
        case sqlite
        case postgres

        /// Every implementation this machine can run: PostgreSQL only where it is given or installed
        /// (PushMockPostgresTests says why when it is not).
        static var available: [Kind] { allCases.filter { $0 != .postgres || PostgresTestDatabase.isAvailable } }

        func make(retention: Int) async throws -> any DeliveryStore {
            switch self {
            case .memory: InMemoryDeliveryStore(retention: retention)
            // Reads wait for what was recorded before them however busy the machine (a store serving
            // a page answers from what is after 5 s).
            case .sqlite: try SQLiteDeliveryStore(path: SQLiteFile.temporary(), retention: retention, readerPatience: TestDeadline.hang)
            case .postgres:
                try await PostgresDeliveryStore.connect(
                    PostgresTestDatabase.create(), retention: retention, connectPatience: TestDeadline.hang, readerPatience: TestDeadline.hang)
            }
        }
    }

    static func delivery(_ index: Int, outcome: Delivery.Outcome = .accepted, token: String = "abcd") -> Delivery {
        SampleDelivery.make(index, outcome: outcome, token: token)
    }

    @Test("recording assigns increasing ids and keeps every field", arguments: Kind.available)
    func roundTrip(_ kind: Kind) async throws {
        let store = try await kind.make(retention: 10)
        let first = store.record(Self.delivery(1))
        let second = store.record(Self.delivery(2))
        #expect(second == first + 1)
        let stored = try #require(try await store.delivery(id: first))
        let original = Self.delivery(1)
        #expect(stored.id == first)
        #expect(stored.receivedAt == original.receivedAt)
        #expect(stored.headers == original.headers)
        #expect(stored.body == original.body)
        #expect(stored.path == original.path)
        #expect(stored.deviceToken == "abcd")
        #expect(stored.apnsID == "ID-1")
        #expect(stored.identity == "T/K")
        #expect(stored.reason == nil)
        #expect(stored.diagnostics == ["d1"])
        #expect(stored.fault == nil)
        #expect(try await store.delivery(id: 999) == nil)
    }

    @Test("retention evicts the oldest; nothing below the cap is lost", arguments: Kind.available)
    func retention(_ kind: Kind) async throws {
        let store = try await kind.make(retention: 100)
        for index in 1...250 {
            store.record(Self.delivery(index))
        }
        // statistics() waits at most 1 s for queued writes (it serves /metrics); a read waits for them.
        #expect(try await store.newestID() == 250)
        let settled = await eventually {
            let statistics = await store.statistics()
            return statistics.count == 100 && statistics.evicted == 150
        }
        let statistics = await store.statistics()
        #expect(settled && statistics.count == 100 && statistics.evicted == 150, "\(statistics)")
        let page = try await store.query(DeliveryFilter(), limit: 1000)
        let (all, total) = (page.deliveries, page.total)
        #expect(total == 100)
        #expect(all.map(\.apnsID) == (151...250).reversed().map { "ID-\($0)" }, "newest first, the newest 100 kept")
        #expect(try await store.delivery(id: 150) == nil)
        #expect(try await store.delivery(id: 151)?.apnsID == "ID-151")
    }

    @Test("queries filter, page with after/before, and count matches beyond the limit", arguments: Kind.available)
    func query(_ kind: Kind) async throws {
        let store = try await kind.make(retention: 10_000)
        for index in 1...30 {
            store.record(Self.delivery(index, outcome: index % 3 == 0 ? .rejected : .accepted, token: index % 2 == 0 ? "aa" : "bb"))
        }
        var filter = DeliveryFilter()
        filter.outcome = .rejected
        let page = try await store.query(filter, limit: 3)
        let (rejected, total) = (page.deliveries, page.total)
        #expect(total == 10)
        #expect(rejected.count == 3)
        #expect(rejected.allSatisfy { $0.outcome == .rejected })
        filter = DeliveryFilter()
        filter.deviceToken = "AA"
        #expect(try await store.query(filter, limit: 100).total == 15)
        filter = DeliveryFilter()
        filter.after = 25
        #expect(try await store.query(filter, limit: 100).deliveries.map(\.id) == [30, 29, 28, 27, 26])
        filter = DeliveryFilter()
        filter.before = 3
        #expect(try await store.query(filter, limit: 100).deliveries.map(\.id) == [2, 1])
    }

    @Test(
        "text searches the request's headers (name, value, or name: value) and body, ASCII case-insensitive, and nothing else",
        arguments: Kind.available)
    func text(_ kind: Kind) async throws {
        let store = try await kind.make(retention: 10_000)
        for index in 1...3 { store.record(Self.delivery(index)) }
        var other = Self.delivery(4)
        other.headers = [HeaderField(name: "apns-topic", value: "org.other.App")]
        store.record(other)
        func matching(_ text: String) async throws -> [UInt64] {
            var filter = DeliveryFilter()
            filter.text = text
            return try await store.query(filter, limit: 100).deliveries.map(\.id).sorted()
        }
        #expect(try await matching(#""alert":"2""#) == [2], "the body")
        #expect(try await matching("ORG.OTHER.app") == [4], "a header value, case-insensitive")
        #expect(try await matching("apns-topic: com.example") == [1, 2, 3], "name: value")
        #expect(try await matching("X-DUP") == [1, 2, 3], "a header name")
        #expect(try await matching("ID-2").isEmpty, "not the apns-id of the record")
        #expect(try await matching("d2").isEmpty, "not the diagnostics")
        #expect(try await matching("HTTP/2").isEmpty, "not the protocol")
    }

    /// Whether the store's count comes to `expected`. Statistics give the database a second and
    /// otherwise answer the count they last read (so that `/metrics` never waits): on a busy machine
    /// the first read after a change may be the one before it.
    static func count(of store: any DeliveryStore, reaches expected: Int) async -> Bool {
        await eventually { await store.statistics().count == expected }
    }

    @Test("removal by filter keeps the rest findable by id", arguments: Kind.available)
    func removal(_ kind: Kind) async throws {
        let store = try await kind.make(retention: 10_000)
        for index in 1...10 {
            store.record(Self.delivery(index, outcome: index % 2 == 0 ? .rejected : .accepted))
        }
        var filter = DeliveryFilter()
        filter.outcome = .rejected
        #expect(try await store.remove(filter) == 5)
        #expect(await Self.count(of: store, reaches: 5), "the store's count never came to 5")
        #expect(try await store.delivery(id: 2) == nil)
        #expect(try await store.delivery(id: 7)?.apnsID == "ID-7")
        try await store.clear()
        #expect(await Self.count(of: store, reaches: 0), "the store's count never came to 0")
        #expect(store.record(Self.delivery(11)) == 11, "ids keep counting after a clear")
        #expect(try await store.newestID() == 11)
    }

    @Test(
        "relay answers: kept with their delivery, replaced by a later one, filtered by relayAgrees, gone with the delivery", arguments: Kind.available
    )
    func relayAnswers(_ kind: Kind) async throws {
        let store = try await kind.make(retention: 5)
        let ids = (1...4).map { store.record(Self.delivery($0)) }
        let upstream = "https://api.sandbox.push.apple.com"
        store.recordRelay(RelayResult(upstream: upstream, error: "connect failed", attempts: 1), forDelivery: ids[0])
        store.recordRelay(
            RelayResult(upstream: upstream, status: 200, upstreamId: "A-1", latencyMilliseconds: 12, attempts: 1, agrees: true), forDelivery: ids[0])
        store.recordRelay(RelayResult(upstream: upstream, status: 400, reason: "BadDeviceToken", attempts: 1, agrees: false), forDelivery: ids[1])
        // Answers are written behind: a reader sees them moments later.
        var disagreeing = DeliveryFilter()
        disagreeing.relayAgrees = false
        var agreeing = DeliveryFilter()
        agreeing.relayAgrees = true
        _ = try await eventually {
            guard try await store.query(disagreeing, limit: 10).total == 1 else { return false }
            return try await store.delivery(id: ids[0])?.relay?.status == 200
        }
        let answer = try #require(try await store.delivery(id: ids[0])?.relay)
        #expect(answer == RelayResult(upstream: upstream, status: 200, upstreamId: "A-1", latencyMilliseconds: 12, attempts: 1, agrees: true))
        #expect(try await store.query(disagreeing, limit: 10).deliveries.map(\.id) == [ids[1]])
        #expect(try await store.query(agreeing, limit: 10).deliveries.map(\.id) == [ids[0]])
        #expect(try await store.query(DeliveryFilter(), limit: 10).deliveries.first { $0.id == ids[2] }?.relay == nil, "not forwarded")
        #expect(try await store.deliveries(after: 0, matching: disagreeing, limit: 10).first?.relay?.reason == "BadDeviceToken")
        // A removed delivery takes its answer along; the others keep theirs.
        var first = DeliveryFilter()
        first.before = ids[1]
        #expect(try await store.remove(first) == 1)
        #expect(try await store.query(agreeing, limit: 10).total == 0)
        #expect(try await store.delivery(id: ids[1])?.relay?.reason == "BadDeviceToken")
        #expect(try await store.delivery(id: ids[2])?.relay == nil)
        // Evicted with its delivery.
        for index in 5...10 { store.record(Self.delivery(index)) }
        #expect(try await store.query(agreeing, limit: 10).total == 0)
        #expect(try await store.query(disagreeing, limit: 10).total == 0)
    }

    @Test(
        "one answer for a run of ids (a relay's queue full): every kept delivery in the run has it; evicted, removed and later ones do not",
        arguments: Kind.available)
    func relayAnswerForRun(_ kind: Kind) async throws {
        let store = try await kind.make(retention: 2500)
        for index in 1...2510 { store.record(Self.delivery(index)) }
        var middle = DeliveryFilter()
        middle.after = 99
        middle.before = 200
        #expect(try await store.remove(middle) == 100)
        let full = RelayResult(upstream: "https://localhost:2197", error: "queue full")
        // Longer than one hold of the memory store's lock, starting among the evicted (1...10).
        store.recordRelay(full, forDeliveries: 5...2400)
        _ = try await eventually { try await store.delivery(id: 2400)?.relay != nil }
        let kept = try await store.query(DeliveryFilter(), limit: 3000).deliveries
        #expect(kept.count == 2400 && kept.map(\.id).min() == 11, "\(kept.count) kept")
        let answered = kept.filter { $0.relay != nil }
        #expect(answered.allSatisfy { $0.relay == full })
        #expect(Set(answered.map(\.id)) == Set(11...2400).subtracting(100...199), "\(answered.count) answered")
        #expect(try await store.delivery(id: 2401)?.relay == nil)
    }

    @Test("a wait counts what is kept, is woken by recording, and times out leaving no waiter", arguments: Kind.available)
    func waiting(_ kind: Kind) async throws {
        let store = try await kind.make(retention: 100)
        store.record(Self.delivery(1, token: "aa"))
        #expect(try await store.wait(for: DeliveryFilter(deviceToken: "aa"), count: 1, timeout: TestDeadline.hang), "already there")
        #expect(try await !store.wait(for: DeliveryFilter(deviceToken: "aa"), count: 2, timeout: .milliseconds(50)), "times out")
        #expect(await store.statistics().waiters == 0, "a timed-out waiter is removed")
        async let woken = store.wait(for: DeliveryFilter(deviceToken: "aa"), count: 3, timeout: TestDeadline.hang)
        #expect(await eventually { await store.statistics().waiters == 1 }, "the wait is waiting")
        store.record(Self.delivery(2, token: "bb"))
        store.record(Self.delivery(3, token: "aa"))
        store.record(Self.delivery(4, token: "aa"))
        #expect(try await woken, "two more matching ones wake it; the other token does not count")
        let cancelled = Task { try await store.wait(for: DeliveryFilter(deviceToken: "zz"), count: 1, timeout: TestDeadline.hang) }
        #expect(await eventually { await store.statistics().waiters == 1 }, "the wait is waiting")
        cancelled.cancel()
        #expect(try await !cancelled.value, "cancelling ends a wait")
        #expect(await store.statistics().waiters == 0)
    }

    @Test("events from a cursor: what is kept after it, then each delivery as it is recorded", arguments: Kind.available)
    func events(_ kind: Kind) async throws {
        let store = try await kind.make(retention: 1000)
        for index in 1...3 { store.record(Self.delivery(index, token: index == 2 ? "bb" : "aa")) }
        let reader = Task {
            var seen: [UInt64] = []
            for try await delivery in store.events(after: 1, matching: DeliveryFilter(deviceToken: "aa")) {
                seen.append(delivery.id)
                if seen.count == 3 { break }
            }
            return seen
        }
        // (Recorded before or after the reader starts, the deliveries after the cursor are its events.)
        store.record(Self.delivery(4, token: "bb"))
        store.record(Self.delivery(5, token: "aa"))
        store.record(Self.delivery(6, token: "aa"))
        #expect(try await reader.value == [3, 5, 6], "after the cursor, matching only, in order")
    }

    @Test("removing by filter while recording keeps what was recorded meanwhile", arguments: Kind.available)
    func removeWhileRecording(_ kind: Kind) async throws {
        let store = try await kind.make(retention: 100_000)
        for index in 1...20_000 { store.record(Self.delivery(index, outcome: .rejected)) }
        let writer = Task {
            for index in 1...2_000 { store.record(Self.delivery(index, outcome: .accepted)) }
        }
        let removed = try await store.remove(DeliveryFilter(outcome: .rejected))
        await writer.value
        #expect(removed == 20_000)
        #expect(try await store.query(DeliveryFilter(outcome: .accepted), limit: 1).total == 2_000, "nothing accepted meanwhile is lost")
        #expect(await Self.count(of: store, reaches: 2_000), "the store's count never came to 2_000")
    }
}
