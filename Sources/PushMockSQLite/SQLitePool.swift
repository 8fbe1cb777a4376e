import CSQLite
import Dispatch
import Synchronization

/// An SQLite file in WAL mode as the store uses it: one writer connection, and up to five read-only
/// connections, each read in its own transaction (it sees one commit, however long it takes).
/// SQLite's calls block, so the asynchronous calls run them on dispatch threads, never on Swift
/// concurrency's few threads: a long query or a busy file stalls no task. A cancelled task's
/// statement is stopped (between SQLite's steps) and throws `CancellationError`.
///
/// ```swift
/// let pool = try SQLitePool(path: "pushmock.sqlite") { try $0.execute("PRAGMA synchronous = NORMAL") }
/// try await pool.write { try $0.execute("DELETE FROM delivery") }
/// let count = try await pool.read { try $0.integer("SELECT COUNT(*) FROM delivery") }
/// pool.close()
/// ```
package final class SQLitePool: Sendable {
    /// Read-only connections at most; a read beyond them waits for one.
    package static let maximumReaders = 5

    private struct Readers {
        var idle: [SQLiteConnection] = []
        var closed = false
    }

    let path: String
    private let writer: SQLiteConnection
    private let writerQueue = DispatchQueue(label: "PushMockStore.writer")
    private let readerQueue = DispatchQueue(label: "PushMockStore.readers", attributes: .concurrent)
    private let readers = Mutex(Readers())
    private let readerSlots = DispatchSemaphore(value: maximumReaders)
    private let prepare: @Sendable (SQLiteConnection) throws -> Void
    /// Set by ``close()``, on the writer's queue.
    private let closed = Atomic<Bool>(false)
    private static let jobs = Atomic<UInt64>(0)

    /// Opens (or creates) `path` in WAL mode; `prepare` runs on each connection as it is opened.
    package init(path: String, prepare: @escaping @Sendable (SQLiteConnection) throws -> Void = { _ in }) throws {
        self.path = path
        self.prepare = prepare
        writer = try SQLiteConnection(path: path)
        try prepare(writer)
        let mode = try writer.texts("PRAGMA journal_mode = WAL").first
        guard mode == "wal" else {
            throw SQLiteError(code: SQLITE_ERROR, message: "the file stays in journal mode \(mode ?? "(none)") instead of WAL", sql: nil)
        }
    }

    // MARK: Writing

    /// Runs `body` on the writer, in a transaction (rolled back if it throws), on this thread.
    package func write<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try writerQueue.sync { try onWriter(nil) { connection in try connection.inTransaction { try body(connection) } } }
    }

    /// Runs `body` on the writer, in a transaction (rolled back if it throws).
    package func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await perform(on: writerQueue) { job in try self.onWriter(job) { connection in try connection.inTransaction { try body(connection) } } }
    }

    /// Runs `body` on the writer outside a transaction (a checkpoint, say).
    package func writeWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await perform(on: writerQueue) { job in try self.onWriter(job, body) }
    }

    private func onWriter<T>(_ job: Job?, _ body: (SQLiteConnection) throws -> T) throws -> T {
        guard !closed.load(ordering: .relaxed) else { throw Self.closedError }
        return try run(job, on: writer, body)
    }

    // MARK: Reading

    /// Runs `body` on a reader, in a transaction, on this thread.
    package func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try onReader(nil, body)
    }

    /// Runs `body` on a reader, in a transaction.
    package func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await perform(on: readerQueue) { job in try self.onReader(job, body) }
    }

    private func onReader<T>(_ job: Job?, _ body: (SQLiteConnection) throws -> T) throws -> T {
        readerSlots.wait()
        defer { readerSlots.signal() }
        let reader = try takeReader()
        defer { giveBack(reader) }
        return try run(job, on: reader) { connection in
            try connection.execute("BEGIN DEFERRED")
            defer { try? connection.execute("COMMIT") }
            return try body(connection)
        }
    }

    private func takeReader() throws -> SQLiteConnection {
        let idle = try readers.withLock { readers -> SQLiteConnection? in
            guard !readers.closed else { throw Self.closedError }
            return readers.idle.popLast()
        }
        if let idle { return idle }
        let reader = try SQLiteConnection(path: path, readOnly: true)
        try prepare(reader)
        return reader
    }

    private func giveBack(_ reader: SQLiteConnection) {
        let kept = readers.withLock { readers -> Bool in
            guard !readers.closed else { return false }
            readers.idle.append(reader)
            return true
        }
        if !kept { reader.close() }
    }

    // MARK: Closing

    /// Closes the connections: the writer's after the writes queued before, each reader's when its
    /// read ends. Later calls throw.
    package func close() {
        let idle = readers.withLock { readers -> [SQLiteConnection] in
            readers.closed = true
            defer { readers.idle = [] }
            return readers.idle
        }
        for reader in idle { reader.close() }
        writerQueue.sync {
            closed.store(true, ordering: .relaxed)
            writer.close()
        }
    }

    private static let closedError = SQLiteError(code: SQLITE_MISUSE, message: "the store's database is closed", sql: nil)

    // MARK: Jobs

    /// One call's work, which its task's cancellation stops.
    private final class Job: Sendable {
        let id = SQLitePool.jobs.add(1, ordering: .relaxed).newValue
        private let state = Mutex<(cancelled: Bool, on: SQLiteConnection?)>((false, nil))

        var isCancelled: Bool { state.withLock { $0.cancelled } }

        func start(on connection: SQLiteConnection) throws {
            try state.withLock { state in
                if state.cancelled { throw CancellationError() }
                state.on = connection
                connection.running.store(id, ordering: .relaxed)
            }
        }

        func end() {
            state.withLock { state in
                state.on?.running.store(0, ordering: .relaxed)
                state.on = nil
            }
        }

        func cancel() {
            state.withLock { state in
                state.cancelled = true
                state.on?.cancelled.store(id, ordering: .relaxed)
            }
        }
    }

    private func run<T>(_ job: Job?, on connection: SQLiteConnection, _ body: (SQLiteConnection) throws -> T) throws -> T {
        guard let job else { return try body(connection) }
        try job.start(on: connection)
        defer { job.end() }
        do {
            return try body(connection)
        } catch {
            if job.isCancelled { throw CancellationError() }
            throw error
        }
    }

    private func perform<T: Sendable>(on queue: DispatchQueue, _ work: @escaping @Sendable (Job) throws -> T) async throws -> T {
        let job = Job()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                queue.async { continuation.resume(with: Result { try work(job) }) }
            }
        } onCancel: {
            job.cancel()
        }
    }
}
