import Foundation
import PushMockCore
import PushMockSQLite
import PushMockStore
import PushMockTestSupport
import Synchronization
import Testing

@Suite("The SQLite store's own SQLite access: files written before it, cancelled reads, a closed file")
struct SQLitePoolTests {
    @Test("a file the store wrote when it was built on GRDB opens, reads back whole and takes new deliveries")
    func writtenWithGRDB() async throws {
        // Written by PushMock 0.4.0 built on GRDB 7.10 (4 KiB pages): an APNs alert, the FCM
        // token grant and send of `pushmock send fcm`, and an APNs push refused for its missing token.
        let fixture = try #require(Bundle.module.path(forResource: "written-with-grdb", ofType: "sqlite", inDirectory: "Fixtures"))
        let path = SQLiteFile.temporary()
        try FileManager.default.copyItem(atPath: fixture, toPath: path)
        let store = try SQLiteDeliveryStore(path: path)
        let page = try await store.query(DeliveryFilter(), limit: 10)
        #expect(page.total == 4)
        #expect(page.deliveries.map(\.service.rawValue) == ["apns", "fcm", "oauth", "apns"], "newest first")
        let alert = try #require(try await store.delivery(id: 1))
        #expect(String(decoding: alert.body, as: UTF8.self).contains("kept since GRDB"), "\(alert)")
        let refused = try #require(try await store.delivery(id: 4))
        #expect(refused.outcome == .rejected && refused.reason == "MissingProviderToken" && refused.status == 403)
        #expect(store.record(SampleDelivery.make(5)) == 5, "ids continue")
        try await store.close()

        let reopened = try SQLiteDeliveryStore(path: path)
        #expect(try await reopened.query(DeliveryFilter(service: .apns), limit: 10).deliveries.map(\.id) == [5, 4, 1])
        try await reopened.close()
        let db = try SQLiteConnection(path: path)
        #expect(
            try db.texts("SELECT identifier FROM grdb_migrations ORDER BY identifier") == [
                "1-deliveries", "2-state", "3-shared", "4-token-key", "5-relay",
            ], "no migration applied twice, none added")
        db.close()
    }

    @Test("a read whose task is cancelled stops its statement and throws CancellationError")
    func cancelledRead() async throws {
        let pool = try SQLitePool(path: SQLiteFile.temporary())
        defer { pool.close() }
        let (started, didStart) = AsyncStream<Void>.makeStream()
        let read = Task {
            try await pool.read { db in
                didStart.yield()
                // Minutes of work: it ends early only if it is stopped.
                return try db.integer("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300000000) SELECT COUNT(*) FROM c")
            }
        }
        for await _ in started { break }
        read.cancel()
        let result = await read.result
        #expect(throws: CancellationError.self) { try result.get() }
        // The reader is usable again: the next read runs.
        #expect(try await pool.read { try $0.integer("SELECT 42") } == 42)
    }

    @Test("a read whose task was cancelled before it started never runs")
    func cancelledBeforeStart() async throws {
        let pool = try SQLitePool(path: SQLiteFile.temporary())
        defer { pool.close() }
        let ran = Mutex(false)
        let read = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await pool.read { db in
                ran.withLock { $0 = true }
                return try db.integer("SELECT 1")
            }
        }
        let result = await read.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(ran.withLock { $0 } == false)
    }

    @Test("a closed file refuses reads and writes with an error, not a crash")
    func closed() async throws {
        let pool = try SQLitePool(path: SQLiteFile.temporary())
        try await pool.write { try $0.execute("CREATE TABLE t (x INTEGER)") }
        pool.close()
        await #expect(throws: SQLiteError.self) { try await pool.write { try $0.execute("INSERT INTO t VALUES (1)") } }
        await #expect(throws: SQLiteError.self) { try await pool.read { try $0.integer("SELECT COUNT(*) FROM t") } }
    }
}

@Suite("SQLite connections bind and read values whole")
struct SQLiteConnectionTests {
    @Test("text with a NUL in it is bound and read whole, and matches only itself; empty text and blobs are not NULL")
    func wholeValues() throws {
        let db = try SQLiteConnection(path: SQLiteFile.temporary())
        defer { db.close() }
        try db.execute("CREATE TABLE t (x TEXT, y BLOB)")
        try db.execute("INSERT INTO t VALUES (?, ?), (?, ?)", [.text("a\u{0}b"), .blob([0, 1]), .text(""), .blob([])])
        #expect(try db.texts("SELECT x FROM t ORDER BY rowid") == ["a\u{0}b", ""])
        #expect(try db.integer("SELECT COUNT(*) FROM t WHERE x = ?", [.text("a")]) == 0)
        #expect(try db.integer("SELECT COUNT(*) FROM t WHERE x = ?", [.text("a\u{0}b")]) == 1)
        #expect(try db.integer("SELECT COUNT(*) FROM t WHERE x IS NULL OR y IS NULL") == 0)
        var blobs: [[UInt8]?] = []
        try db.forEachRow("SELECT y FROM t ORDER BY rowid") { row in
            blobs.append(row.blob(0))
            return true
        }
        #expect(blobs == [[0, 1], []])
    }
}
