import CSQLite
import PushMockStore
import Synchronization

/// A value bound to a statement's `?`.
package enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])

    package init(_ value: Int64?) { self = value.map { .integer($0) } ?? .null }
    package init(_ value: String?) { self = value.map { .text($0) } ?? .null }
    package init(_ value: Bool?) { self = value.map { .integer($0 ? 1 : 0) } ?? .null }
}

/// What SQLite answered when a call failed: its result code and message, and the statement.
package struct SQLiteError: Error, CustomStringConvertible {
    package let code: Int32
    package let message: String
    package let sql: String?

    package var description: String {
        "SQLite error \(code): \(message)" + (sql.map { " - while executing `\($0)`" } ?? "")
    }
}

/// One connection to an SQLite file, used by one thread at a time (``SQLitePool`` hands it out,
/// hence `@unchecked Sendable`):
/// statements with bound values, rows read by column name.
///
/// ```swift
/// let connection = try SQLiteConnection(path: "pushmock.sqlite")
/// try connection.execute("INSERT INTO store_meta (key, value) VALUES (?, ?)", [.text("count"), .integer(0)])
/// let count = try connection.integer("SELECT value FROM store_meta WHERE key = 'count'")
/// ```
package final class SQLiteConnection: @unchecked Sendable {
    /// The connection, for the store's own binds (``SQLiteBatchInsert``).
    package let handle: OpaquePointer
    private var isClosed = false
    /// The job running on it and the job cancelled last (``SQLitePool``): its progress handler
    /// stops a statement while the two are the same.
    let running = Atomic<UInt64>(0)
    let cancelled = Atomic<UInt64>(0)

    /// Opens `path` (creating it unless `readOnly`); a busy file is waited for 5 s.
    package init(path: String, readOnly: Bool = false) throws {
        var opened: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        let code = sqlite3_open_v2(path, &opened, flags, nil)
        guard code == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(opened)
            throw SQLiteError(code: code, message: message, sql: nil)
        }
        handle = opened
        sqlite3_busy_timeout(handle, 5_000)
        sqlite3_progress_handler(
            handle, 1_000,
            { context in
                let connection = Unmanaged<SQLiteConnection>.fromOpaque(context!).takeUnretainedValue()
                let job = connection.running.load(ordering: .relaxed)
                return job != 0 && connection.cancelled.load(ordering: .relaxed) == job ? 1 : 0
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        close()
    }

    /// Closes the connection (once its statements are finalized); nothing may use it after.
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        sqlite3_close_v2(handle)
    }

    /// Rows the last statement inserted, changed or deleted.
    package var changes: Int { Int(sqlite3_changes(handle)) }

    /// Runs `sql` (several statements, separated by `;`, when it binds nothing).
    package func execute(_ sql: String, _ arguments: [SQLiteValue] = []) throws {
        try sql.withCString { start in
            var next: UnsafePointer<CChar>? = start
            while let current = next, current.pointee != 0 {
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v2(handle, current, -1, &statement, &tail)
                guard code == SQLITE_OK else { throw failure(code, sql) }
                next = tail
                guard let statement else { continue }  // only white space or a comment was left
                defer { sqlite3_finalize(statement) }
                try bind(arguments, to: statement, sql)
                while true {
                    let step = sqlite3_step(statement)
                    if step == SQLITE_DONE { break }
                    guard step == SQLITE_ROW else { throw failure(step, sql) }
                }
            }
        }
    }

    /// Calls `body` with each row `sql` answers until it returns false.
    package func forEachRow(_ sql: String, _ arguments: [SQLiteValue] = [], _ body: (SQLiteRow) throws -> Bool) throws {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else { throw failure(code, sql) }
        defer { sqlite3_finalize(statement) }
        try bind(arguments, to: statement, sql)
        let row = SQLiteRow(statement)
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return }
            guard step == SQLITE_ROW else { throw failure(step, sql) }
            guard try body(row) else { return }
        }
    }

    /// The first column of the first row, as an integer; nil for no row or NULL.
    package func integer(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> Int64? {
        var value: Int64?
        try forEachRow(sql, arguments) { row in
            value = row.integer(0)
            return false
        }
        return value
    }

    /// The first column of every row, as text (NULLs left out).
    package func texts(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> [String] {
        var values: [String] = []
        try forEachRow(sql, arguments) { row in
            if let text = row.text(0) { values.append(text) }
            return true
        }
        return values
    }

    /// Runs `body` in a transaction that takes the write lock at once; an error rolls it back.
    package func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if sqlite3_get_autocommit(handle) == 0 { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Adds `pushmock_token_key(text)` (``SQLiteTokenKey``) to SQL on this connection.
    package func addTokenKeyFunction() throws {
        let code = sqlite3_create_function_v2(
            handle, "pushmock_token_key", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { context, _, values in
                // Text (or a blob, read as its bytes, as SQLite reads one as text); else NULL.
                guard let value = values?[0], [SQLITE_TEXT, SQLITE_BLOB].contains(sqlite3_value_type(value)) else {
                    sqlite3_result_null(context)
                    return
                }
                let bytes = sqlite3_value_text(value)
                let count = Int(sqlite3_value_bytes(value))
                sqlite3_result_int64(context, SQLiteTokenKey.of(UnsafeBufferPointer(start: bytes, count: bytes == nil ? 0 : count)))
            }, nil, nil, nil)
        guard code == SQLITE_OK else { throw failure(code, nil) }
    }

    private func bind(_ arguments: [SQLiteValue], to statement: OpaquePointer, _ sql: String) throws {
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32 =
                switch argument {
                case .null: sqlite3_bind_null(statement, index)
                case .integer(let value): sqlite3_bind_int64(statement, index, value)
                case .text(var value):
                    // By its length, not up to a NUL: text with a NUL in it is bound whole.
                    value.withUTF8 { bytes in
                        bytes.withMemoryRebound(to: CChar.self) { chars in
                            sqlite3_bind_text(statement, index, chars.baseAddress ?? Self.emptyText, Int32(chars.count), Self.transient)
                        }
                    }
                case .blob(let value):
                    value.withUnsafeBytes { bytes in
                        // A zero-length blob is a blob, not NULL: SQLite takes a nil pointer for NULL.
                        sqlite3_bind_blob(statement, index, bytes.baseAddress ?? UnsafeRawPointer(Self.empty), Int32(bytes.count), Self.transient)
                    }
                }
            guard code == SQLITE_OK else { throw failure(code, sql) }
        }
    }

    /// SQLite copies what it is given (`SQLITE_TRANSIENT`).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    nonisolated(unsafe) private static let empty = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
    /// Empty text, for a string whose bytes have no address: SQLite takes a nil pointer for NULL.
    nonisolated(unsafe) private static let emptyText: UnsafePointer<CChar> = UnsafePointer(empty.bindMemory(to: CChar.self, capacity: 1))

    package func failure(_ code: Int32, _ sql: String?) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }
}

/// The row a statement stands on, read by column index or name; valid until the next step.
package struct SQLiteRow {
    private let statement: OpaquePointer
    /// Each column's index by name (the first of a name that appears twice).
    private let columns: [String: Int32]

    init(_ statement: OpaquePointer) {
        self.statement = statement
        var columns: [String: Int32] = [:]
        for index in 0..<sqlite3_column_count(statement) {
            let name = String(cString: sqlite3_column_name(statement, index))
            if columns[name] == nil { columns[name] = index }
        }
        self.columns = columns
    }

    /// The index of the column named `name`; a missing name is a programming error.
    package func index(_ name: String) -> Int32 {
        guard let index = columns[name] else { preconditionFailure("no column \(name)") }
        return index
    }

    package func isNull(_ index: Int32) -> Bool { sqlite3_column_type(statement, index) == SQLITE_NULL }

    package func integer(_ index: Int32) -> Int64? { isNull(index) ? nil : sqlite3_column_int64(statement, index) }

    package func text(_ index: Int32) -> String? {
        guard !isNull(index), let text = sqlite3_column_text(statement, index) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    package func blob(_ index: Int32) -> [UInt8]? {
        guard !isNull(index) else { return nil }
        // The bytes first, then their count, as SQLite asks.
        guard let bytes = sqlite3_column_blob(statement, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, index))))
    }

    package func integer(_ name: String) -> Int64? { integer(index(name)) }
    package func text(_ name: String) -> String? { text(index(name)) }
    package func blob(_ name: String) -> [UInt8]? { blob(index(name)) }
}
