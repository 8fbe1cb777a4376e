import Foundation
public import PushMockCore
public import PushMockStore
import Synchronization

/// Deliveries in one SQLite file (WAL mode, versioned migrations), kept across restarts.
///
/// The push path never waits for the disk: `record` assigns the id, counts the delivery for the
/// waits and queues it; one writer task commits what has queued, one transaction per batch (group
/// commit: the next batch is whatever arrived while the last one was written). Readers first wait
/// for what was recorded before them to be committed, then ask SQLite, whose filter columns are
/// indexed. A queue past `queueLimit` (the disk is gone or full) drops deliveries and counts them;
/// the writer retries a failed batch until it commits. `close()` (SIGTERM) commits everything first.
/// After `kill -9`, at most what was queued and not yet committed is lost: under load one batch.
///
/// ```swift
/// let store = try SQLiteDeliveryStore(path: "pushmock.sqlite", retention: 10_000, retentionAge: .hours(24))
/// store.record(delivery)
/// try await store.close()
/// ```
public final class SQLiteDeliveryStore: DeliveryStore, StateArchive {
    /// The file's `PRAGMA application_id` ("PMck"): what tells PushMock's files from foreign ones.
    static let applicationID: Int32 = 0x504D_636B
    /// The page size of a new file.
    static let pageSize = 65_536
    /// How long the writer lets a batch gather. Each commit rewrites every page it touches whole
    /// (the tables' and indexes' last pages, page 1), so under load a longer window means fewer
    /// of those per delivery: measured at `-c16 -m100`, 20 ms wrote 1 575 bytes per delivery
    /// against 5 ms's 1 960, and cost the writer 12% less. It is also what `kill -9` can lose.
    static let batchWindow: Duration = .milliseconds(20)

    struct State {
        var nextID: UInt64
        var waiters = WaiterTable()
        var stored: Int
        var evicted: UInt64 = 0
    }

    let pool: SQLitePool
    let state: Mutex<State>
    let waiterCount = Atomic<Int>(0)
    /// Deliveries kept at most; older ones are deleted first.
    public let retention: Int
    /// Deliveries older than this (by `receivedAt`) are deleted, if set.
    public let retentionAge: Duration?
    /// The file.
    public let path: String
    /// How long a reader waits for earlier deliveries to be committed before it answers from what is.
    let readerPatience: Duration
    /// The batches written behind the push path.
    let queue: WriteBehind<SQLiteRowBatch>
    /// Relay answers written behind the relay.
    let relayWrites: RelayWriteQueue
    /// Shared fields introduced since the unreferenced ones were last cleaned up.
    let sharedIntroduced = Atomic<Int>(0)
    /// How many introduced shared fields make a cleanup of the unreferenced ones worth its scan.
    let sharedCleanupEvery: Int
    /// Snapshots waiting to be written, newest per key, and the task writing them.
    let snapshots = Mutex<(pending: [String: [UInt8]], writer: Task<Void, Never>?)>(([:], nil))
    /// The lock that keeps a second PushMock off this file while this one has it open.
    let lock: SQLiteFileLock
    /// The file as it was opened (device and inode), and when it was last seen there.
    let identity: SQLiteFileLock.Identity
    let lastChecked = Mutex<ContinuousClock.Instant>(.now)
    /// Where trouble is reported (one line; true: trouble).
    let report: (@Sendable (String, Bool) -> Void)?
    /// How long closing waits for a storage that keeps failing before it gives up (and says what
    /// could not be written): 10 s unless the store is made with another.
    public let closePatience: Duration

    /// Opens (or creates) the store at `path`. A file that is not SQLite, or an SQLite database that
    /// is not PushMock's, is refused and left as it is. While writes fail or deliveries are dropped,
    /// `report` gets one line a second (`trouble` false: writes resumed). After every
    /// `sharedCleanupEvery` shared fields introduced (by default 1 000, or a tenth of `retention`
    /// if more, so that the cleanup's scan of the kept deliveries costs a push little), a batch
    /// also deletes the shared rows no delivery names any more.
    public init(
        path: String, retention: Int = 10_000, retentionAge: Duration? = nil, queueLimit: Int = 100_000, sharedCleanupEvery: Int? = nil,
        closePatience: Duration = .seconds(10), readerPatience: Duration = .seconds(5),
        report: (@Sendable (_ line: String, _ trouble: Bool) -> Void)? = nil
    ) throws {
        precondition(retention > 0)
        self.closePatience = closePatience
        self.readerPatience = readerPatience
        self.sharedCleanupEvery = sharedCleanupEvery ?? Self.sharedCleanupDefault(retention: retention)
        self.path = path
        self.retention = retention
        self.retentionAge = retentionAge
        lock = try SQLiteFileLock(databasePath: path)
        pool = try Self.open(path)
        identity = try SQLiteFileLock.Identity(path: path)
        let (next, stored) = try pool.read { db -> (UInt64, Int) in
            let next = try db.integer("SELECT value FROM store_meta WHERE key = 'next_id'") ?? 1
            let maxID = try db.integer("SELECT MAX(id) FROM delivery") ?? 0
            // Ids are SQLite integers: a file whose ids reach Int64.max (a hostile or damaged file)
            // has no next id to give, which is an error to report, never an overflow to trap on.
            guard maxID < Int64.max, next < Int64.max else {
                throw StoreError(
                    "\(path): its delivery ids have reached \(Int64.max), the largest SQLite can hold; start a new file (pushmock export, then import into it)"
                )
            }
            return (UInt64(max(next, maxID + 1, 1)), try Self.count(db))
        }
        state = Mutex(State(nextID: next, stored: stored))
        queue = WriteBehind<SQLiteRowBatch>(queueLimit: queueLimit, window: Self.batchWindow, carry: SharedSlots())
        // The writer keeps the store until it is closed.
        var named: (@Sendable (String, Bool) -> Void)?
        if let report {
            named = { line, trouble in report("sqlite:\(path): " + line, trouble) }
        }
        self.report = named
        let reportTrouble = named
        relayWrites = RelayWriteQueue(report: { line in reportTrouble?(line, true) })
        relayWrites.start { [pool] batch in
            try await pool.write { db in
                for (id, result) in batch {
                    try db.execute(
                        "INSERT INTO relay (id, agrees, result) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET agrees = excluded.agrees, result = excluded.result",
                        [.integer(Int64(bitPattern: id)), SQLiteValue(result.agrees), .blob(try RelayResultCoding.encode(result))])
                }
            }
        }
        queue.start({ batch in try await self.write(batch) }, report: named)
    }

    /// Deliveries queued for the disk at most; more are dropped and counted.
    public var queueLimit: Int { queue.queueLimit }

    static func open(_ path: String) throws -> SQLitePool {
        // Not a regular file (a FIFO would hang the open, a device or directory is not a store).
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
            throw StoreError("\(path) is not a regular file (\(SQLiteFileLock.kind(status.st_mode))); choose a file path for the SQLite store")
        }
        if FileManager.default.fileExists(atPath: path), let handle = FileHandle(forReadingAtPath: path) {
            let header = (try? handle.read(upToCount: 16)) ?? Data()
            try? handle.close()
            if !header.isEmpty, header != Data("SQLite format 3\u{0}".utf8) {
                throw StoreError("\(path) is not an SQLite database; PushMock leaves it as it is (choose another file)")
            }
        }
        _ = SQLiteSettings.applied
        let pool: SQLitePool
        do {
            pool = try SQLitePool(path: path) { db in
                // WAL with synchronous NORMAL: a commit is not fsynced (a power cut may lose the last
                // ones; a killed process does not), checkpoints are.
                // 64 KiB pages for a new file (an existing one keeps its own): a delivery's row is
                // about a kilobyte, and the writer's cost is mostly pages written to the WAL and
                // checkpointed (measured: 4 KiB 55k req/s, 16 KiB 59k, 64 KiB 61k at -c16 -m100, one
                // core).
                try db.execute("PRAGMA page_size = \(pageSize)")
                try db.execute("PRAGMA synchronous = NORMAL")
                try db.execute("PRAGMA cache_size = -32768")
            }
        } catch {
            throw StoreError("cannot open \(path) as an SQLite database: \(error)")
        }
        try pool.write { db in
            let application = try db.integer("PRAGMA application_id") ?? 0
            let tables = try db.texts("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            if application != Int64(applicationID) && !(application == 0 && tables.isEmpty) {
                throw StoreError(
                    "\(path) is an SQLite database of something else (application_id \(application), tables \(tables.joined(separator: ", "))); PushMock leaves it as it is (choose another file)"
                )
            }
        }
        // A file a newer PushMock has migrated may keep rows this one would misread: refused.
        if try pool.read({ try SQLiteSchema.isSuperseded($0, applicationID: applicationID) }) {
            let applied = (try? pool.read { try SQLiteSchema.applied($0) }) ?? []
            throw StoreError(
                "\(path) was written by a newer PushMock (schema \(applied.sorted().joined(separator: ", "))); upgrade PushMock to use it")
        }
        do {
            try SQLiteSchema.migrate(pool, applicationID: applicationID)
        } catch {
            throw StoreError("\(path): the schema could not be brought up to date: \(error)")
        }
        // A file PushMock cannot write (a read-only mount or file) is refused now, not found out
        // at the first push.
        do {
            try pool.write { db in try setMeta(db, "opened_at", Int64(Date().timeIntervalSince1970)) }
        } catch {
            throw StoreError("\(path) cannot be written (a read-only file or filesystem?): \(error)")
        }
        return pool
    }

    // MARK: Recording

    public func recordRelay(_ result: RelayResult, forDelivery id: UInt64) {
        relayWrites.add(result, forDelivery: id)
    }

    @discardableResult
    public func record(_ delivery: Delivery) -> UInt64 {
        let waiting = waiterCount.load(ordering: .relaxed) > 0
        let (id, fired) = state.withLock { state -> (UInt64, [@Sendable () -> Void]) in
            let id = state.nextID
            state.nextID += 1
            guard waiting else { return (id, []) }
            defer { waiterCount.store(state.waiters.count, ordering: .relaxed) }
            var recorded = delivery
            recorded.id = id
            return (id, state.waiters.record(recorded))
        }
        queue.enqueue(delivery, id: id)
        for callback in fired { callback() }
        return id
    }

    private func write(_ batch: SQLiteRowBatch) async throws {
        try checkFile()
        let retention = retention
        let horizon = retentionAge.map { batch.lastReceivedAt - Int64($0.milliseconds) }
        let (evicted, kept) = try await pool.write { db -> (Int, Int) in
            var count = try Self.count(db)
            let introduced = try SQLiteBatchInsert.insert(batch, into: db)
            count += batch.count
            var evicted = 0
            if let horizon {
                try db.execute("DELETE FROM delivery WHERE received_at < ?", [.integer(horizon)])
                evicted += db.changes
            }
            // The oldest first, walking only as many rows as go (the count is kept, never counted).
            let excess = count - evicted - retention
            if excess > 0 {
                try db.execute("DELETE FROM delivery WHERE id IN (SELECT id FROM delivery ORDER BY id LIMIT ?)", [.integer(Int64(excess))])
                evicted += db.changes
            }
            count -= evicted
            if evicted > 0 {
                try db.execute("DELETE FROM relay WHERE id < (SELECT MIN(id) FROM delivery)")
            }
            if self.sharedIntroduced.add(introduced, ordering: .relaxed).newValue >= self.sharedCleanupEvery {
                // Shared fields no delivery names any more; a batch that names them again writes them again.
                try db.execute("DELETE FROM shared WHERE shared_id NOT IN (SELECT shared_id FROM delivery WHERE shared_id IS NOT NULL)")
                self.sharedIntroduced.store(0, ordering: .relaxed)
            }
            try Self.setMeta(db, "next_id", Int64(bitPattern: batch.lastID + 1))
            try Self.setMeta(db, "count", Int64(count))
            return (evicted, count)
        }
        state.withLock { state in
            state.evicted += UInt64(evicted)
            state.stored = kept
        }
    }

    /// Rows in `delivery`, as `store_meta` keeps it (counted once if it does not yet).
    static func count(_ db: SQLiteConnection) throws -> Int {
        if let kept = try db.integer("SELECT value FROM store_meta WHERE key = 'count'") { return Int(kept) }
        return Int(try db.integer("SELECT COUNT(*) FROM delivery") ?? 0)
    }

    static func setMeta(_ db: SQLiteConnection, _ key: String, _ value: Int64) throws {
        try db.execute(
            "INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", [.text(key), .integer(value)]
        )
    }

    /// Waits until everything recorded so far is committed.
    public func flush() async {
        await queue.flush()
    }

    /// Writes what is queued (SIGTERM), giving up after ``closePatience`` if writes keep failing
    /// (a full disk, a read-only remount): what could not be written is reported. Then the WAL is
    /// checkpointed into the file, so that the one file is the whole store.
    public func close() async throws {
        // The lock goes with the store even when closing fails: the process is done with the file
        // either way.
        defer { lock.release() }
        let snapshotsWritten = WaitSignal()
        Task {
            while let writer = snapshots.withLock({ $0.writer }) { await writer.value }
            snapshotsWritten.finish(true)
        }
        if await !snapshotsWritten.result(timeout: closePatience, cancel: {}) {
            snapshots.withLock { $0.writer?.cancel() }
        }
        await queue.close(patience: closePatience)
        await relayWrites.flush(within: closePatience)
        let (_, dropped, failure) = queue.statistics
        if let failure, dropped > 0 {
            report?("closing: \(dropped) deliveries could not be written and are lost: \(failure)", true)
        }
        try? await pool.writeWithoutTransaction { db in try db.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        pool.close()
    }

    /// Throws while the file at `path` is not the one opened (deleted or replaced under the
    /// server): writes stop, are retried, and the store reports the failure (health says so)
    /// instead of writing into a file nobody will find. Checked at most once a second.
    func checkFile() throws {
        let due = lastChecked.withLock { last -> Bool in
            guard ContinuousClock.now - last >= .seconds(1) else { return false }
            last = .now
            return true
        }
        guard due else { return }
        let now = try? SQLiteFileLock.Identity(path: path)
        guard now == identity else {
            checkFileOnNextWrite()
            throw StoreError(
                "\(path) was \(now == nil ? "deleted" : "replaced by another file") while PushMock had it open; deliveries are held in memory (up to the queue limit) and not written. Restart PushMock to start a new file"
            )
        }
    }

    /// Makes the next batch check the file however recently it was checked (a file found missing
    /// stays suspect; tests need not wait for the second to pass).
    package func checkFileOnNextWrite() {
        lastChecked.withLock { $0 = .now - .seconds(2) }
    }

    /// After how many introduced shared fields the unreferenced ones are cleaned up, by default:
    /// the cleanup scans what is kept, so it runs at most once per tenth of `retention`.
    package static func sharedCleanupDefault(retention: Int) -> Int {
        SharedRows.cleanupDefault(retention: retention)
    }
}
