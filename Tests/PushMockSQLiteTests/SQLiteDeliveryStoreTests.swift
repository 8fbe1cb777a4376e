import CSQLite
import Foundation
import PushMockCore
import PushMockSQLite
import PushMockStore
import PushMockTestSupport
import Testing

@Suite("The SQLite store keeps deliveries across restarts and never touches a file that is not its own")
struct SQLiteDeliveryStoreTests {
    @Test("a restart with the same file shows everything from before; ids continue, even after a clear")
    func restart() async throws {
        let path = SQLiteFile.temporary()
        let store = try SQLiteDeliveryStore(path: path, retention: 10_000)
        for index in 1...1_000 { store.record(SampleDelivery.make(index)) }
        try await store.close()
        let reopened = try SQLiteDeliveryStore(path: path, retention: 10_000)
        #expect(try await reopened.newestID() == 1_000)
        #expect(try await reopened.query(DeliveryFilter(), limit: 1).total == 1_000)
        #expect(try await reopened.delivery(id: 500)?.apnsID == "ID-500")
        #expect(reopened.record(SampleDelivery.make(1_001)) == 1_001, "ids continue")
        try await reopened.clear()
        try await reopened.close()
        let cleared = try SQLiteDeliveryStore(path: path, retention: 10_000)
        #expect(try await cleared.query(DeliveryFilter(), limit: 1).total == 0)
        #expect(cleared.record(SampleDelivery.make(1_002)) == 1_002, "a clear does not reuse ids")
        try await cleared.close()
    }

    @Test("a file whose ids reach Int64.max is refused at start with a clear error, not a trap")
    func idsExhausted() async throws {
        for column in ["id", "next_id"] {
            let path = SQLiteFile.temporary()
            let store = try SQLiteDeliveryStore(path: path)
            store.record(SampleDelivery.make(1))
            try await store.close()
            let db = try SQLiteConnection(path: path)
            if column == "id" {
                try db.execute("UPDATE delivery SET id = 9223372036854775807")
            } else {
                try db.execute("INSERT OR REPLACE INTO store_meta(key, value) VALUES ('next_id', 9223372036854775807)")
            }
            db.close()
            let error = #expect(throws: StoreError.self) { try SQLiteDeliveryStore(path: path) }
            #expect(error?.message.contains("ids have reached 9223372036854775807") == true, "\(column): \(String(describing: error))")
        }
    }

    @Test("a row whose bytes do not decode (a hostile or damaged file) is skipped and counted; the other rows are read")
    func damagedRow() async throws {
        let path = SQLiteFile.temporary()
        let store = try SQLiteDeliveryStore(path: path)
        for index in 1...3 { store.record(SampleDelivery.make(index)) }
        try await store.close()
        let db = try SQLiteConnection(path: path)
        // Counts of 2^56 and more, and a string longer than the row: "failed to allocate" or SIGSEGV before.
        try db.execute("UPDATE delivery SET record = x'FFFFFFFFFFFFFFFFFF7F41' WHERE id = 2")
        // A whole (older-format) record whose first string claims 4 GB.
        try db.execute("UPDATE delivery SET shared_id = NULL, record = x'FEFFFFFF41' WHERE id = 3")
        db.close()
        let before = UndecodableRecords.count
        let reopened = try SQLiteDeliveryStore(path: path)
        let page = try await reopened.query(DeliveryFilter(), limit: 10)
        #expect(page.deliveries.map(\.id) == [1], "only the intact row is listed")
        #expect(try await reopened.delivery(id: 2) == nil)
        #expect(try await reopened.deliveries(after: 0, matching: DeliveryFilter(), limit: 10).map(\.id) == [1])
        var text = DeliveryFilter()
        text.text = "alert"
        #expect(try await reopened.query(text, limit: 10).deliveries.count == 1)
        #expect(UndecodableRecords.count >= before + 2)
        try await reopened.close()
    }

    @Test("close writes everything recorded before it, in batches")
    func closeFlushes() async throws {
        let path = SQLiteFile.temporary()
        // Close waits for the writes however busy the machine (by default it gives up after 10 s).
        let store = try SQLiteDeliveryStore(path: path, retention: 100_000, closePatience: TestDeadline.hang)
        for index in 1...30_000 { store.record(SampleDelivery.make(index)) }
        try await store.close()
        let db = try SQLiteConnection(path: path)
        #expect(try db.integer("SELECT COUNT(*) FROM delivery") == 30_000)
        db.close()
    }

    @Test("a file that is not SQLite, or another program's database, is refused and left as it is")
    func foreignFiles() async throws {
        let text = SQLiteFile.temporary()
        try Data("not a database, but somebody's notes".utf8).write(to: URL(fileURLWithPath: text))
        #expect(throws: StoreError.self) { try SQLiteDeliveryStore(path: text) }
        #expect(try String(contentsOfFile: text, encoding: .utf8) == "not a database, but somebody's notes")

        let foreign = SQLiteFile.temporary()
        let db = try SQLiteConnection(path: foreign)
        try db.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total INTEGER); INSERT INTO invoices VALUES (1, 42)")
        db.close()
        do {
            _ = try SQLiteDeliveryStore(path: foreign)
            Issue.record("a foreign database was opened")
        } catch let error as StoreError {
            #expect(error.message.contains("invoices"))
        }
        let check = try SQLiteConnection(path: foreign)
        #expect(try check.integer("SELECT total FROM invoices") == 42)
        #expect(try check.integer("SELECT COUNT(*) FROM sqlite_master WHERE name = 'delivery'") == 0)
        check.close()
    }

    @Test("retention by age deletes what is older than the window")
    func retentionAge() async throws {
        // The read waits for what was recorded before it however busy the machine (by default,
        // a page answers from what is written after 5 s).
        let store = try SQLiteDeliveryStore(
            path: SQLiteFile.temporary(), retention: 1_000, retentionAge: .hours(24), readerPatience: TestDeadline.hang)
        var old = SampleDelivery.make(1)
        old.receivedAt -= 25 * 3_600_000
        store.record(old)
        store.record(SampleDelivery.make(2))
        let page = try await store.query(DeliveryFilter(), limit: 10)
        #expect(page.deliveries.map(\.apnsID) == ["ID-2"])
        #expect(await store.statistics().evicted == 1)
        try await store.close()
    }

    @Test("a new file has 64 KiB pages; a file made with other pages keeps them and works")
    func pageSize() async throws {
        func pageSize(_ path: String) throws -> Int64 {
            let db = try SQLiteConnection(path: path)
            defer { db.close() }
            return try db.integer("PRAGMA page_size") ?? 0
        }
        let fresh = SQLiteFile.temporary()
        let store = try SQLiteDeliveryStore(path: fresh)
        store.record(SampleDelivery.make(1))
        try await store.close()
        #expect(try pageSize(fresh) == 65_536)

        // A file an earlier PushMock made (4 KiB pages, its application id, no tables yet).
        let earlier = SQLiteFile.temporary()
        let db = try SQLiteConnection(path: earlier)
        try db.execute("PRAGMA page_size = 4096")
        try db.execute("PRAGMA application_id = \(0x504D_636B)")
        db.close()
        let reopened = try SQLiteDeliveryStore(path: earlier)
        for index in 1...100 { reopened.record(SampleDelivery.make(index)) }
        try await reopened.close()
        #expect(try pageSize(earlier) == 4_096)
        let again = try SQLiteDeliveryStore(path: earlier)
        #expect(try await again.query(DeliveryFilter(), limit: 1).total == 100)
        try await again.close()
    }

    @Test("the token, time and cursor filters are answered from indexes")
    func indexed() async throws {
        let path = SQLiteFile.temporary()
        let store = try SQLiteDeliveryStore(path: path)
        store.record(SampleDelivery.make(1))
        try await store.close()
        let db = try SQLiteConnection(path: path)
        func plan(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> String {
            var details: [String] = []
            try db.forEachRow("EXPLAIN QUERY PLAN " + sql, arguments) { row in
                details.append(row.text("detail") ?? "")
                return true
            }
            return details.joined(separator: "; ")
        }
        // The clause the store asks for a token (newest first, after a cursor), as it asks it.
        let (clause, arguments) = SQLiteFilter.whereClause(DeliveryFilter(deviceToken: "AB", after: 5))
        let tokenPlan = try plan("SELECT * FROM delivery \(clause) ORDER BY id DESC", arguments)
        #expect(tokenPlan.contains("USING INDEX delivery_by_token_key (token_key=? AND id>?)"), "\(tokenPlan)")
        #expect(!tokenPlan.contains("TEMP B-TREE"), "no sort: the index gives the order")
        #expect(try plan("SELECT * FROM delivery WHERE id > 5 ORDER BY id ASC").contains("USING INTEGER PRIMARY KEY"))
        #expect(try plan("SELECT * FROM delivery WHERE received_at >= 5").contains("USING INDEX delivery_by_received"))
        db.close()
    }

    @Test("a device token is indexed by an integer key; tokens whose keys collide are still told apart")
    func tokenKey() async throws {
        // The key is kept in every file: these values must never change.
        #expect(SQLiteTokenKey.of("") == -8_000_516_528_691_662_285)
        #expect(SQLiteTokenKey.of(String(repeating: "a1", count: 32)) == 5_257_808_058_171_516_058)
        #expect(SQLiteTokenKey.of(String(repeating: "a1", count: 32)) != SQLiteTokenKey.of(String(repeating: "a1", count: 31) + "a2"))
        #expect(SQLiteTokenKey.of("abcdefgh") != SQLiteTokenKey.of("abcdefgh\u{0}"), "the length counts")

        let path = SQLiteFile.temporary()
        let store = try SQLiteDeliveryStore(path: path)
        store.record(SampleDelivery.make(1, token: "ab12"))
        store.record(SampleDelivery.make(2, token: "cd34"))
        try await store.close()
        let db = try SQLiteConnection(path: path)
        #expect(try db.integer("SELECT token_key FROM delivery WHERE id = 1") == SQLiteTokenKey.of("ab12"))
        // Make cd34's row collide with ab12's key.
        try db.execute("UPDATE delivery SET token_key = ? WHERE id = 2", [.integer(SQLiteTokenKey.of("ab12"))])
        db.close()
        let reopened = try SQLiteDeliveryStore(path: path)
        #expect(try await reopened.query(DeliveryFilter(deviceToken: "AB12"), limit: 10).deliveries.map(\.apnsID) == ["ID-1"])
        #expect(try await reopened.query(DeliveryFilter(deviceToken: "cd34"), limit: 10).deliveries.isEmpty, "found by its key only")
        try await reopened.close()
    }

    @Test("a file from before the token key gets one for every row it keeps, and its token index is replaced")
    func tokenKeyMigration() async throws {
        let path = SQLiteFile.temporary()
        let store = try SQLiteDeliveryStore(path: path)
        for index in 1...20 { store.record(SampleDelivery.make(index, token: index.isMultiple(of: 2) ? "EVEN00" : "odd11")) }
        var tokenless = SampleDelivery.make(21)
        tokenless.deviceToken = nil
        store.record(tokenless)
        try await store.close()
        // Back to schema 3, as an earlier PushMock left it.
        let db = try SQLiteConnection(path: path)
        try db.execute(
            """
            DROP INDEX delivery_by_token_key;
            ALTER TABLE delivery DROP COLUMN token_key;
            CREATE INDEX delivery_by_token ON delivery(device_token, id);
            DELETE FROM grdb_migrations WHERE identifier = '4-token-key';
            """)
        db.close()

        let reopened = try SQLiteDeliveryStore(path: path)
        #expect(try await reopened.query(DeliveryFilter(deviceToken: "even00"), limit: 100).deliveries.count == 10)
        #expect(
            try await reopened.query(DeliveryFilter(deviceToken: "odd11", after: 10), limit: 100).deliveries.map(\.apnsID) == [
                "ID-19", "ID-17", "ID-15", "ID-13", "ID-11",
            ])
        try await reopened.close()
        let check = try SQLiteConnection(path: path)
        #expect(try check.integer("SELECT COUNT(*) FROM delivery WHERE token_key IS NOT NULL") == 20, "every row with a token, and only those")
        #expect(
            try check.texts("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'delivery' ORDER BY name") == [
                "delivery_by_received", "delivery_by_token_key",
            ])
        check.close()
    }

    @Test("SQLite runs in multi-thread mode: no mutex per call on a connection")
    func multiThread() async throws {
        #expect(SQLiteSettings.applied == 0, "configured before SQLite was initialized")
        #expect(SQLiteSettings.multiThread)
        let store = try SQLiteDeliveryStore(path: SQLiteFile.temporary())
        store.record(SampleDelivery.make(1))
        try await store.close()
        let db = try SQLiteConnection(path: SQLiteFile.temporary())
        #expect(sqlite3_db_mutex(db.handle) == nil)
        db.close()
    }
}
