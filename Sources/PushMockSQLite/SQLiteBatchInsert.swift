import CSQLite
import PushMockCore
import PushMockStore

/// Inserts a batch of deliveries through one prepared statement with SQLite's own bind calls: the
/// writer must keep up with the push path, and per-row argument arrays would not. The batch is
/// already encoded (``SQLiteRowBatch``); its bytes are bound without a copy.
enum SQLiteBatchInsert {
    static let sql = """
        INSERT INTO delivery (id, received_at, connection_id, service, environment, device_token, topic, push_type, outcome, reason, status, project, body_is_json, record, shared_id, token_key)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    static let sharedSQL = "INSERT OR IGNORE INTO shared (shared_id, fields) VALUES (?, ?)"

    /// SQLite keeps the pointer it is given until the statement is reset or bound again
    /// (`SQLITE_STATIC`): the batch's bytes outlive every step.
    private static let unmanaged = unsafeBitCast(0, to: sqlite3_destructor_type.self)
    /// What an empty text column is bound to when its bytes have no address.
    nonisolated(unsafe) private static let emptyText: UnsafePointer<CChar> = {
        let text = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
        text.initialize(to: 0)
        return UnsafePointer(text)
    }()

    /// Inserts `batch`: each row keeps the delivery's own part and names its shared fields, which
    /// are inserted first (where missing: new, or cleaned up since). Returns how many shared
    /// fields were new for their connection.
    @discardableResult
    static func insert(_ batch: SQLiteRowBatch, into db: SQLiteConnection) throws -> Int {
        let connection = db.handle
        var statement: OpaquePointer?
        var code = sqlite3_prepare_v2(connection, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else { throw failure(connection, code) }
        defer { sqlite3_finalize(statement) }
        var sharedStatement: OpaquePointer?
        code = sqlite3_prepare_v2(connection, sharedSQL, -1, &sharedStatement, nil)
        guard code == SQLITE_OK, let sharedStatement else { throw failure(connection, code) }
        defer { sqlite3_finalize(sharedStatement) }
        for (id, fields) in batch.shared.rows {
            sqlite3_reset(sharedStatement)
            sqlite3_bind_int64(sharedStatement, 1, id)
            code = fields.bytes.withUnsafeBufferPointer { bytes in
                _ = sqlite3_bind_blob(sharedStatement, 2, bytes.baseAddress, Int32(bytes.count), unmanaged)
                return sqlite3_step(sharedStatement)
            }
            guard code == SQLITE_DONE else { throw failure(connection, code) }
        }
        // Parameters 4-10 and 12 are the text columns, 14 the record, 16 the token's key.
        let textParameters: [Int32] = [4, 5, 6, 7, 8, 9, 10, 12]
        try batch.withRows { row, columns in
            sqlite3_reset(statement)
            sqlite3_bind_int64(statement, 1, Int64(bitPattern: row.id))
            sqlite3_bind_int64(statement, 2, row.receivedAt)
            sqlite3_bind_int64(statement, 3, Int64(bitPattern: row.connectionID))
            for (index, parameter) in textParameters.enumerated() {
                if let text = columns[index] {
                    _ = text.withMemoryRebound(to: CChar.self) { chars in
                        // An empty text is still text, not NULL: SQLite takes a nil pointer for NULL.
                        sqlite3_bind_text(statement, parameter, chars.baseAddress ?? emptyText, Int32(chars.count), unmanaged)
                    }
                } else {
                    sqlite3_bind_null(statement, parameter)
                }
            }
            sqlite3_bind_int64(statement, 11, Int64(row.status))
            sqlite3_bind_int(statement, 13, row.bodyIsJSON ? 1 : 0)
            let record = columns[8]!  // never empty: a packed own part has at least its path byte
            _ = sqlite3_bind_blob(statement, 14, record.baseAddress, Int32(record.count), unmanaged)
            sqlite3_bind_int64(statement, 15, row.sharedID)
            if let token = columns[2] {
                sqlite3_bind_int64(statement, 16, SQLiteTokenKey.of(token))
            } else {
                sqlite3_bind_null(statement, 16)
            }
            let code = sqlite3_step(statement)
            guard code == SQLITE_DONE else { throw failure(connection, code) }
        }
        return batch.shared.introduced
    }

    private static func failure(_ connection: OpaquePointer, _ code: Int32) -> StoreError {
        StoreError("SQLite error \(code): \(String(cString: sqlite3_errmsg(connection)))")
    }
}
