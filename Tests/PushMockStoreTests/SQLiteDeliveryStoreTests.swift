import Foundation
import GRDB
import PushMockCore
import PushMockStore
import Testing

@Suite("The SQLite store keeps deliveries across restarts and never touches a file that is not its own")
struct SQLiteDeliveryStoreTests {
    typealias Contract = DeliveryStoreTests

    @Test("a restart with the same file shows everything from before; ids continue, even after a clear")
    func restart() async throws {
        let path = SQLiteFile.temporary()
        let store = try SQLiteDeliveryStore(path: path, retention: 10_000)
        for index in 1...1_000 { store.record(Contract.delivery(index)) }
        try await store.close()
        let reopened = try SQLiteDeliveryStore(path: path, retention: 10_000)
        #expect(try await reopened.newestID() == 1_000)
        #expect(try await reopened.query(DeliveryFilter(), limit: 1).total == 1_000)
        #expect(try await reopened.delivery(id: 500)?.apnsID == "ID-500")
        #expect(reopened.record(Contract.delivery(1_001)) == 1_001, "ids continue")
        try await reopened.clear()
        try await reopened.close()
        let cleared = try SQLiteDeliveryStore(path: path, retention: 10_000)
        #expect(try await cleared.query(DeliveryFilter(), limit: 1).total == 0)
        #expect(cleared.record(Contract.delivery(1_002)) == 1_002, "a clear does not reuse ids")
        try await cleared.close()
    }

    @Test("close writes everything recorded before it, in batches")
    func closeFlushes() async throws {
        let path = SQLiteFile.temporary()
        let store = try SQLiteDeliveryStore(path: path, retention: 100_000)
        for index in 1...30_000 { store.record(Contract.delivery(index)) }
        try await store.close()
        let pool = try DatabasePool(path: path)
        #expect(try await pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM delivery") } == 30_000)
        try pool.close()
    }

    @Test("a file that is not SQLite, or another program's database, is refused and left as it is")
    func foreignFiles() async throws {
        let text = SQLiteFile.temporary()
        try Data("not a database, but somebody's notes".utf8).write(to: URL(fileURLWithPath: text))
        #expect(throws: StoreError.self) { try SQLiteDeliveryStore(path: text) }
        #expect(try String(contentsOfFile: text, encoding: .utf8) == "not a database, but somebody's notes")

        let foreign = SQLiteFile.temporary()
        let queue = try DatabaseQueue(path: foreign)
        try await queue.write { try $0.execute(sql: "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total INTEGER); INSERT INTO invoices VALUES (1, 42)") }
        try queue.close()
        do {
            _ = try SQLiteDeliveryStore(path: foreign)
            Issue.record("a foreign database was opened")
        } catch let error as StoreError {
            #expect(error.message.contains("invoices"))
        }
        let check = try DatabaseQueue(path: foreign)
        #expect(try await check.read { try Int.fetchOne($0, sql: "SELECT total FROM invoices") } == 42)
        #expect(try await check.read { try Bool.fetchOne($0, sql: "SELECT COUNT(*) > 0 FROM sqlite_master WHERE name = 'delivery'") } == false)
        try check.close()
    }

    @Test("retention by age deletes what is older than the window")
    func retentionAge() async throws {
        let store = try SQLiteDeliveryStore(path: SQLiteFile.temporary(), retention: 1_000, retentionAge: .hours(24))
        var old = Contract.delivery(1)
        old.receivedAt -= 25 * 3_600_000
        store.record(old)
        store.record(Contract.delivery(2))
        let page = try await store.query(DeliveryFilter(), limit: 10)
        #expect(page.deliveries.map(\.apnsID) == ["ID-2"])
        #expect(await store.statistics().evicted == 1)
        try await store.close()
    }

    @Test("a new file has 64 KiB pages; a file made with other pages keeps them and works")
    func pageSize() async throws {
        func pageSize(_ path: String) async throws -> Int {
            let queue = try DatabaseQueue(path: path)
            defer { try? queue.close() }
            return try await queue.read { try Int.fetchOne($0, sql: "PRAGMA page_size") ?? 0 }
        }
        let fresh = SQLiteFile.temporary()
        let store = try SQLiteDeliveryStore(path: fresh)
        store.record(Contract.delivery(1))
        try await store.close()
        #expect(try await pageSize(fresh) == 65_536)

        // A file an earlier PushMock made (4 KiB pages, its application id, no tables yet).
        let earlier = SQLiteFile.temporary()
        let queue = try DatabaseQueue(path: earlier)
        try await queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA page_size = 4096")
            try db.execute(sql: "PRAGMA application_id = \(0x504D_636B)")
        }
        try queue.close()
        let reopened = try SQLiteDeliveryStore(path: earlier)
        for index in 1...100 { reopened.record(Contract.delivery(index)) }
        try await reopened.close()
        #expect(try await pageSize(earlier) == 4_096)
        let again = try SQLiteDeliveryStore(path: earlier)
        #expect(try await again.query(DeliveryFilter(), limit: 1).total == 100)
        try await again.close()
    }

    @Test("the token, time and cursor filters are answered from indexes")
    func indexed() async throws {
        let path = SQLiteFile.temporary()
        let store = try SQLiteDeliveryStore(path: path)
        store.record(Contract.delivery(1))
        try await store.close()
        let queue = try DatabaseQueue(path: path)
        func plan(_ sql: String) async throws -> String {
            try await queue.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }.joined(separator: "; ")
            }
        }
        #expect(try await plan("SELECT * FROM delivery WHERE device_token = 'ab' AND id > 5 ORDER BY id DESC").contains("USING INDEX delivery_by_token"))
        #expect(try await plan("SELECT * FROM delivery WHERE id > 5 ORDER BY id ASC").contains("USING INTEGER PRIMARY KEY"))
        #expect(try await plan("SELECT * FROM delivery WHERE received_at >= 5").contains("USING INDEX delivery_by_received"))
        try queue.close()
    }
}
