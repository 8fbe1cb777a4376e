import PushMockCore
import PushMockStore
import Testing

@Suite("The in-memory delivery store")
struct DeliveryStoreTests {
    static func delivery(_ index: Int, outcome: Delivery.Outcome = .accepted, token: String = "abcd") -> Delivery {
        Delivery(
            receivedAt: 1_767_225_600_000 + Int64(index), connectionID: 7, httpVersion: "HTTP/2", service: .apns, environment: "sandbox",
            method: "POST", path: "/3/device/\(token)", headers: [HeaderField(name: "apns-topic", value: "com.example.app"), HeaderField(name: "x-dup", value: "é"), HeaderField(name: "x-dup", value: "2")],
            body: Array(#"{"aps":{"alert":"\#(index)"}}"#.utf8), bodyIsJSON: true, identity: "T/K", pushType: "alert", topic: "com.example.app",
            deviceToken: token, apnsID: "ID-\(index)", outcome: outcome, status: outcome == .accepted ? 200 : 400,
            reason: outcome == .accepted ? nil : "BadTopic", explanation: nil, diagnostics: ["d\(index)"], fault: index == 3 ? "f" : nil
        )
    }

    @Test("recording assigns increasing ids and keeps every field")
    func roundTrip() throws {
        let store = InMemoryDeliveryStore(retention: 10)
        let first = store.record(Self.delivery(1))
        let second = store.record(Self.delivery(2))
        #expect(second == first + 1)
        let stored = try #require(store.delivery(id: first))
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
        #expect(store.delivery(id: 999) == nil)
    }

    @Test("retention evicts the oldest; nothing below the cap is lost")
    func retention() {
        let store = InMemoryDeliveryStore(retention: 100)
        for index in 1...250 {
            store.record(Self.delivery(index))
        }
        #expect(store.count == 100)
        #expect(store.evictedCount == 150)
        let (all, total) = store.query(DeliveryFilter(), limit: 1000)
        #expect(total == 100)
        #expect(all.map(\.apnsID) == (151...250).reversed().map { "ID-\($0)" }, "newest first, the newest 100 kept")
        #expect(store.delivery(id: 150) == nil)
        #expect(store.delivery(id: 151)?.apnsID == "ID-151")
    }

    @Test("queries filter, page with after/before, and count matches beyond the limit")
    func query() {
        let store = InMemoryDeliveryStore()
        for index in 1...30 {
            store.record(Self.delivery(index, outcome: index % 3 == 0 ? .rejected : .accepted, token: index % 2 == 0 ? "aa" : "bb"))
        }
        var filter = DeliveryFilter()
        filter.outcome = .rejected
        let (rejected, total) = store.query(filter, limit: 3)
        #expect(total == 10)
        #expect(rejected.count == 3)
        #expect(rejected.allSatisfy { $0.outcome == .rejected })
        filter = DeliveryFilter()
        filter.deviceToken = "AA"
        #expect(store.query(filter, limit: 100).total == 15)
        filter = DeliveryFilter()
        filter.after = 25
        #expect(store.query(filter, limit: 100).deliveries.map(\.id) == [30, 29, 28, 27, 26])
        filter = DeliveryFilter()
        filter.before = 3
        #expect(store.query(filter, limit: 100).deliveries.map(\.id) == [2, 1])
    }

    @Test("removal by filter keeps the rest findable by id")
    func removal() {
        let store = InMemoryDeliveryStore()
        for index in 1...10 {
            store.record(Self.delivery(index, outcome: index % 2 == 0 ? .rejected : .accepted))
        }
        var filter = DeliveryFilter()
        filter.outcome = .rejected
        #expect(store.remove(filter) == 5)
        #expect(store.count == 5)
        #expect(store.delivery(id: 2) == nil)
        #expect(store.delivery(id: 7)?.apnsID == "ID-7")
        #expect(store.remove() == 5)
        #expect(store.count == 0)
        #expect(store.record(Self.delivery(11)) == 11, "ids keep counting after a clear")
    }
}
