import GRDB
import GRDBSQLite
import PushMockCore

/// Inserts a batch of deliveries through one prepared statement with SQLite's own bind calls: the
/// writer must keep up with the push path, and per-row argument arrays would not.
enum SQLiteBatchInsert {
    static let sql = """
        INSERT INTO delivery (id, received_at, connection_id, service, environment, device_token, topic, push_type, outcome, reason, status, project, body_is_json, record, shared_id)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    static let sharedSQL = "INSERT OR IGNORE INTO shared (shared_id, fields) VALUES (?, ?)"

    /// SQLite copies what it is given (`SQLITE_TRANSIENT`).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Inserts `batch`: each row keeps the delivery's own part and names its shared fields, which
    /// are inserted (if missing) with the batch's first row that names them. Returns how many
    /// shared fields were new for their connection.
    @discardableResult
    static func insert(_ batch: [Delivery], into db: Database, slots: inout SharedSlots) throws -> Int {
        guard let connection = db.sqliteConnection else { throw StoreError("the SQLite connection is closed") }
        var statement: OpaquePointer?
        var code = sqlite3_prepare_v2(connection, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else { throw failure(connection, code) }
        defer { sqlite3_finalize(statement) }
        var sharedStatement: OpaquePointer?
        code = sqlite3_prepare_v2(connection, sharedSQL, -1, &sharedStatement, nil)
        guard code == SQLITE_OK, let sharedStatement else { throw failure(connection, code) }
        defer { sqlite3_finalize(sharedStatement) }
        var named = SharedRows()
        for delivery in batch {
            let (own, sharedID) = try CompactDelivery.pack(delivery) { shared, own -> ([UInt8], Int64) in
                let (id, fields, introduced) = slots.name(shared, of: delivery)
                let before = named.rows.count
                named.note(id, fields, introduced: introduced)
                if named.rows.count > before {
                    sqlite3_reset(sharedStatement)
                    sqlite3_bind_int64(sharedStatement, 1, id)
                    _ = sqlite3_bind_blob(sharedStatement, 2, shared.baseAddress, Int32(shared.count), transient)
                    let code = sqlite3_step(sharedStatement)
                    guard code == SQLITE_DONE else { throw failure(connection, code) }
                }
                return (own, id)
            }
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
            sqlite3_bind_int64(statement, 1, Int64(bitPattern: delivery.id))
            sqlite3_bind_int64(statement, 2, delivery.receivedAt)
            sqlite3_bind_int64(statement, 3, Int64(bitPattern: delivery.connectionID))
            bind(statement, 4, delivery.service.rawValue)
            bind(statement, 5, delivery.environment)
            bind(statement, 6, delivery.deviceToken?.lowercased())
            bind(statement, 7, delivery.topic)
            bind(statement, 8, delivery.pushType)
            bind(statement, 9, delivery.outcome.rawValue)
            bind(statement, 10, delivery.reason)
            sqlite3_bind_int64(statement, 11, Int64(delivery.status))
            bind(statement, 12, delivery.project)
            sqlite3_bind_int(statement, 13, delivery.bodyIsJSON ? 1 : 0)
            own.withUnsafeBytes { bytes in
                _ = sqlite3_bind_blob(statement, 14, bytes.baseAddress, Int32(bytes.count), transient)
            }
            sqlite3_bind_int64(statement, 15, sharedID)
            code = sqlite3_step(statement)
            guard code == SQLITE_DONE else { throw failure(connection, code) }
        }
        return named.introduced
    }

    private static func bind(_ statement: OpaquePointer, _ index: Int32, _ value: String?) {
        guard var text = value else {
            sqlite3_bind_null(statement, index)
            return
        }
        text.withUTF8 { bytes in
            _ = bytes.withMemoryRebound(to: CChar.self) { chars in
                sqlite3_bind_text(statement, index, chars.baseAddress, Int32(chars.count), transient)
            }
        }
    }

    private static func failure(_ connection: OpaquePointer, _ code: Int32) -> StoreError {
        StoreError("SQLite error \(code): \(String(cString: sqlite3_errmsg(connection)))")
    }
}
