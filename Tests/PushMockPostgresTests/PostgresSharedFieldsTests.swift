import NIOCore
import PostgresNIO
import PushMockCore
import PushMockStore
import PushMockTestSupport
import Testing

@testable import PushMockPostgres

/// What a connection's deliveries share is written once, in `pushmock_shared`; each delivery's row
/// keeps its own part and names the shared one.
@Suite("The PostgreSQL store keeps a connection's shared fields once", .postgres)
struct PostgresSharedFieldsTests {
    static func count(_ store: PostgresDeliveryStore, _ query: PostgresQuery) async throws -> Int64 {
        try await PostgresDeliveryStore.count(store.client.query(query))
    }

    @Test("one shared row per connection and change of its shared fields; every delivery reads back whole, also on another instance")
    func oneRowPerConnection() async throws {
        let location = try await PostgresTestDatabase.create()
        let store = try await PostgresDeliveryStore.connect(
            location, retention: 100, connectPatience: TestDeadline.hang, readerPatience: TestDeadline.hang)
        let sent = SharedFieldsSample.deliveries()
        let ids = sent.map { store.record($0) }
        await SharedFieldsSample.committed { await store.flush() }
        // Connection 7 with its first headers, connection 7 with a new one, connection 8.
        #expect(try await Self.count(store, "SELECT count(*) FROM pushmock_shared") == 3)
        #expect(try await Self.count(store, "SELECT count(DISTINCT shared_id) FROM pushmock_delivery") == 3)

        let reader = try await PostgresDeliveryStore.connect(
            location, retention: 100, connectPatience: TestDeadline.hang, readerPatience: TestDeadline.hang)
        for (id, original) in zip(ids, sent) {
            for instance in [store, reader] { try SharedFieldsSample.expectSame(try await instance.delivery(id: id), original, id: id) }
        }
        try await reader.close()
        try await store.close()
    }

    @Test("a delivery written before shared fields were kept apart (the whole record, no shared_id) still reads back")
    func olderRows() async throws {
        let store = try await PostgresDeliveryStore.connect(
            PostgresTestDatabase.create(), retention: 100, connectPatience: TestDeadline.hang, readerPatience: TestDeadline.hang)
        var old = SampleDelivery.make(9)
        old.id = 424_242
        let record = ByteBuffer(bytes: PackedDelivery(old).arena)
        try await store.client.query(
            """
            INSERT INTO pushmock_delivery (id, received_at, connection_id, service, environment, device_token, topic, push_type, outcome, reason, status, project, body_is_json, record)
            VALUES (\(Int64(old.id)), \(old.receivedAt), \(Int64(old.connectionID)), \(old.service.rawValue), \(old.environment), \(old.deviceToken), \(old.topic),
                    \(old.pushType), \(old.outcome.rawValue), \(old.reason), \(Int64(old.status)), \(old.project), \(old.bodyIsJSON), \(record))
            """)
        try SharedFieldsSample.expectSame(try await store.delivery(id: old.id), old, id: old.id)
        try await store.close()
    }

    @Test("a delivery whose shared fields are gone is an error that names both, not a wrong delivery")
    func missingSharedRow() async throws {
        let store = try await PostgresDeliveryStore.connect(
            PostgresTestDatabase.create(), retention: 100, connectPatience: TestDeadline.hang, readerPatience: TestDeadline.hang)
        let id = store.record(SampleDelivery.make(1))
        await SharedFieldsSample.committed { await store.flush() }
        try await store.client.query("DELETE FROM pushmock_shared")
        await SharedFieldsSample.expectMissingSharedFields(reading: id, from: store)
        try await store.close()
    }

    @Test("a garbage record row in a fleet's database is skipped and counted by every reader, never a crash")
    func garbageRow() async throws {
        let store = try await PostgresDeliveryStore.connect(
            PostgresTestDatabase.create(), retention: 100, connectPatience: TestDeadline.hang, readerPatience: TestDeadline.hang)
        let ids = (1...3).map { store.record(SampleDelivery.make($0)) }
        await SharedFieldsSample.committed { await store.flush() }
        let before = UndecodableRecords.count
        // "failed to allocate 536559516819792 bytes" / SIGSEGV on the first list before.
        try await store.client.query("UPDATE pushmock_delivery SET record = '\\xffffffffffffffffff7f41'::bytea WHERE id = \(Int64(ids[1]))")
        try await store.client.query("UPDATE pushmock_delivery SET shared_id = NULL, record = '\\xfeffffff41'::bytea WHERE id = \(Int64(ids[2]))")
        let page = try await store.query(DeliveryFilter(), limit: 10)
        #expect(page.deliveries.map(\.id) == [ids[0]])
        #expect(try await store.delivery(id: ids[1]) == nil)
        #expect(try await store.deliveries(after: 0, matching: DeliveryFilter(), limit: 10).map(\.id) == [ids[0]])
        #expect(UndecodableRecords.count >= before + 2)
        try await store.close()
    }

    @Test("shared fields no delivery names are cleaned up; a connection whose slot names cleaned-up fields writes them again")
    func cleanup() async throws {
        let store = try await PostgresDeliveryStore.connect(
            PostgresTestDatabase.create(), retention: 100, connectPatience: TestDeadline.hang, readerPatience: TestDeadline.hang,
            sharedCleanupEvery: 2)
        try await SharedFieldsSample.cleanupScenario(
            store, flush: { await SharedFieldsSample.committed { await store.flush() } },
            sharedIDs: {
                var ids: Set<Int64> = []
                for try await id in try await store.client.query("SELECT shared_id FROM pushmock_shared").decode(Int64.self) { ids.insert(id) }
                return ids
            })
        try await store.close()
    }
}
