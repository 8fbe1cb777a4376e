import Foundation
import PushMockCore
import PushMockSQLite
import PushMockStore
import PushMockTestSupport
import Testing

/// What a connection's deliveries share is written once, in the table `shared`; each delivery's row
/// keeps its own part and names the shared one.
@Suite("The SQLite store keeps a connection's shared fields once")
struct SQLiteSharedFieldsTests {
    static func count(_ path: String, _ sql: String) throws -> Int {
        let db = try SQLiteConnection(path: path)
        defer { db.close() }
        return Int(try db.integer(sql) ?? -1)
    }

    @Test("one shared row per connection and change of its shared fields; every delivery reads back whole, also after a restart")
    func oneRowPerConnection() async throws {
        let path = SQLiteFile.temporary()
        let store = try SQLiteDeliveryStore(path: path, retention: 100)
        let sent = SharedFieldsSample.deliveries()
        let ids = sent.map { store.record($0) }
        await SharedFieldsSample.committed { await store.flush() }
        // Connection 7 with its first headers, connection 7 with a new one, connection 8.
        #expect(try Self.count(path, "SELECT COUNT(*) FROM shared") == 3)
        #expect(try Self.count(path, "SELECT COUNT(DISTINCT shared_id) FROM delivery") == 3)
        for (id, original) in zip(ids, sent) { try SharedFieldsSample.expectSame(try await store.delivery(id: id), original, id: id) }
        try await store.close()

        let reopened = try SQLiteDeliveryStore(path: path, retention: 100)
        for (id, original) in zip(ids, sent) { try SharedFieldsSample.expectSame(try await reopened.delivery(id: id), original, id: id) }
        // After a restart no slot is filled: the first push of a connection writes its fields again.
        let next = reopened.record(SampleDelivery.make(6))
        await SharedFieldsSample.committed { await reopened.flush() }
        #expect(try Self.count(path, "SELECT COUNT(*) FROM shared") == 4)
        try SharedFieldsSample.expectSame(try await reopened.delivery(id: next), SampleDelivery.make(6), id: next)
        try await reopened.close()
    }

    @Test("a batch that fails is rolled back with the shared fields it wrote, and its retry writes them again")
    func failedBatchWritesSharedFieldsAgain() async throws {
        let path = SQLiteFile.temporary()
        let store = try SQLiteDeliveryStore(path: path, retention: 100)
        let first = store.record(SampleDelivery.make(1))
        await SharedFieldsSample.committed { await store.flush() }
        // A row in the way of the next id: the next batch fails on it until it is gone.
        let blocker = try SQLiteConnection(path: path)
        try blocker.execute(
            "INSERT INTO delivery (id, received_at, connection_id, service, outcome, status, body_is_json, record) VALUES (?, 0, 0, 'apns', 'accepted', 200, 0, x'00')",
            [.integer(Int64(first + 1))])
        var changed = SampleDelivery.make(2)
        changed.headers.append(HeaderField(name: "authorization", value: "bearer new"))
        let second = store.record(changed)
        #expect(second == first + 1)
        _ = await eventually { await store.statistics().failure != nil }
        #expect(await store.statistics().failure != nil, "the batch did not fail")
        try blocker.execute("DELETE FROM delivery WHERE id = ?", [.integer(Int64(second))])
        blocker.close()
        await SharedFieldsSample.committed { await store.flush() }
        try SharedFieldsSample.expectSame(try await store.delivery(id: second), changed, id: second)
        try await store.close()
    }

    @Test("a delivery written before shared fields were kept apart (the whole record, no shared_id) still reads back")
    func olderRows() async throws {
        let path = SQLiteFile.temporary()
        let store = try SQLiteDeliveryStore(path: path, retention: 100)
        var written = SampleDelivery.make(9)
        written.id = 4_242
        let old = written
        let db = try SQLiteConnection(path: path)
        try db.execute(
            """
            INSERT INTO delivery (id, received_at, connection_id, service, environment, device_token, topic, push_type, outcome, reason, status, project, body_is_json, record)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .integer(Int64(old.id)), .integer(old.receivedAt), .integer(Int64(old.connectionID)), .text(old.service.rawValue),
                SQLiteValue(old.environment), SQLiteValue(old.deviceToken), SQLiteValue(old.topic), SQLiteValue(old.pushType),
                .text(old.outcome.rawValue), SQLiteValue(old.reason), .integer(Int64(old.status)), SQLiteValue(old.project),
                SQLiteValue(old.bodyIsJSON), .blob(PackedDelivery(old).arena),
            ])
        db.close()
        try SharedFieldsSample.expectSame(try await store.delivery(id: old.id), old, id: old.id)
        try await store.close()
    }

    @Test("a delivery whose shared fields are gone is an error that names both, not a wrong delivery")
    func missingSharedRow() async throws {
        let path = SQLiteFile.temporary()
        let store = try SQLiteDeliveryStore(path: path, retention: 100)
        let id = store.record(SampleDelivery.make(1))
        await SharedFieldsSample.committed { await store.flush() }
        let db = try SQLiteConnection(path: path)
        try db.execute("DELETE FROM shared")
        db.close()
        await SharedFieldsSample.expectMissingSharedFields(reading: id, from: store)
        try await store.close()
    }

    @Test("a file a newer PushMock has migrated is refused and left as it is")
    func newerFile() async throws {
        let path = SQLiteFile.temporary()
        try await SQLiteDeliveryStore(path: path, retention: 100).close()
        let db = try SQLiteConnection(path: path)
        try db.execute("INSERT INTO grdb_migrations (identifier) VALUES ('9-from-the-future')")
        db.close()
        func schema() throws -> [String] {
            let db = try SQLiteConnection(path: path)
            defer { db.close() }
            return try db.texts("SELECT identifier FROM grdb_migrations ORDER BY identifier")
                + db.texts("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
        }
        let before = try schema()
        #expect {
            _ = try SQLiteDeliveryStore(path: path, retention: 100)
        } throws: { error in
            "\(error)".contains("was written by a newer PushMock") && "\(error)".contains("9-from-the-future")
        }
        #expect(try schema() == before)
    }

    @Test("shared fields no delivery names are cleaned up; a connection whose slot names cleaned-up fields writes them again")
    func cleanup() async throws {
        let path = SQLiteFile.temporary()
        let store = try SQLiteDeliveryStore(path: path, retention: 100, sharedCleanupEvery: 2)
        try await SharedFieldsSample.cleanupScenario(
            store, flush: { await SharedFieldsSample.committed { await store.flush() } },
            sharedIDs: {
                let db = try SQLiteConnection(path: path)
                defer { db.close() }
                var ids: Set<Int64> = []
                try db.forEachRow("SELECT shared_id FROM shared") { row in
                    if let id = row.integer(0) { ids.insert(id) }
                    return true
                }
                return ids
            })
        try await store.close()
    }
}
