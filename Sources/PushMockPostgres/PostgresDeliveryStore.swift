import Foundation
import Logging
public import NIOCore
public import PostgresNIO
import PushMockCore
public import PushMockStore
import Synchronization

/// Deliveries in a PostgreSQL database that several `pushmock serve` processes share: a fleet that
/// behaves as one PushMock.
///
/// - **Ids** are unique across the fleet: each instance leases blocks of ``idBlock`` ids from one
///   sequence and keeps ``spareBlocks`` more, so `record` assigns an id at once and never waits
///   for the database. One instance's ids are consecutive while it alone writes. With no id left
///   (the database away for 20 000 pushes) a delivery is dropped and counted.
/// - **Order** is commit order. Every batch is written under one advisory lock and numbered from a
///   second sequence (`seq`) inside it, so a reader never sees a later batch before an earlier one.
///   Cursors (`after`, `before`, event streams) name a delivery by id and are read as "committed
///   after that delivery", so a cursor taken on one instance is right on every other.
/// - **Visibility**: every commit sends `NOTIFY pushmock`; every instance listens, and its waits and
///   event streams look again when told (no polling).
/// - **Writes** are batched behind the push path as in the SQLite store (one `INSERT … unnest`, one
///   transaction per batch). While the database is unreachable, deliveries queue up to `queueLimit` and then
///   are dropped and counted; the writer retries until it is back.
/// - **State** (devices, faults, channels) is kept as snapshots by key; a snapshot written by one
///   instance is applied by the others when they are told.
///
/// ```swift
/// let store = try await PostgresDeliveryStore.connect(PostgresLocation(url: "postgres://localhost/pushmock"), retention: 10_000)
/// store.record(delivery)
/// try await store.close()
/// ```
public final class PostgresDeliveryStore: DeliveryStore, SharedStateArchive {
    /// Ids leased at a time.
    public static let idBlock: UInt64 = 10_000
    /// Blocks leased ahead: how many pushes may be recorded while the database is away.
    public static let spareBlocks = 2
    /// The advisory lock every batch and removal is written under (ASCII "PMck").
    static let writeLock: Int64 = 0x504D_636B
    /// The notification channel.
    static let channel = "pushmock"

    struct Leases {
        var next: UInt64
        var end: UInt64
        var spares: [Range<UInt64>]
        var requesting = false
    }

    /// The connection pool and the task running it. A write abandoned after ``writePatience``
    /// replaces both: postgres-nio's pool was seen to hand out no connection again after a cancelled
    /// write (its connections closed under it), so the retry goes to a fresh pool.
    let pool: Mutex<(client: PostgresClient, run: Task<Void, Never>)>
    /// The pool in use.
    var client: PostgresClient { pool.withLock { $0.client } }
    /// Pools replaced after a write got no answer (kept, not cancelled: see ``replacePool()``).
    let abandonedPools = Mutex<[(client: PostgresClient, run: Task<Void, Never>)]>([])
    let location: PostgresLocation
    /// Where the pool's connections run: the server's own event loops, so that a write's replies
    /// are read without waking another thread.
    let eventLoopGroup: any EventLoopGroup
    let logger: Logger
    /// Deliveries kept at most; the oldest (by commit) are deleted first.
    public let retention: Int
    /// Deliveries older than this (by `receivedAt`) are deleted, if set.
    public let retentionAge: Duration?
    /// This process's name in notifications (its own are not applied twice).
    let instance = UUID().uuidString
    let leases: Mutex<Leases>
    let queue: WriteBehind<PostgresRowBatch>
    /// Relay answers written behind the relay.
    let relayWrites: RelayWriteQueue
    let changes = ChangeSignal()
    let evicted = Atomic<UInt64>(0)
    /// Shared fields this instance introduced since it last cleaned up the unreferenced ones.
    let sharedIntroduced = Atomic<Int>(0)
    /// How many introduced shared fields make a cleanup of the unreferenced ones worth its scan.
    let sharedCleanupEvery: Int
    /// A write failed or got no answer, so its batch may or may not be committed: the next write
    /// replaces whatever of its rows is there instead of adding them twice.
    let uncertain = Atomic<Bool>(false)
    /// A write with no answer for this long is abandoned and retried on a fresh pool (a connection
    /// can hang when the server goes away in the middle of a write). 10 s unless told.
    let writePatience: Duration
    let waiting = Atomic<Int>(0)
    /// Snapshots as last read or written, by key (what `archived` answers), and who is told of changes.
    let snapshots = Mutex(SnapshotTable())
    /// Held while the observer is told of a change, one change at a time.
    let observerCalls = Mutex(())
    /// Snapshots not yet written, newest per key, and the task writing them.
    let snapshotQueue = Mutex<(pending: [String: [UInt8]], writer: Task<Void, Never>?)>(([:], nil))
    /// The delivery count last read (what `/metrics` shows while the database is away).
    let lastCount = Atomic<Int64>(0)
    let listenTask = Mutex<Task<Void, Never>?>(nil)
    /// How long closing waits for an unreachable database before it gives up on what is queued.
    static let closePatience: Duration = .seconds(10)
    /// How long a reader waits for what this instance recorded before it to be committed (then it
    /// answers from what is).
    let readerPatience: Duration
    /// How long a Live Activity push's turn waits for it to be answered before it gives the
    /// activities back (see ``turn(_:since:)``).
    let turnPatience: Duration

    private init(
        client: PostgresClient, runTask: Task<Void, Never>, location: PostgresLocation, eventLoopGroup: any EventLoopGroup, firstBlock: Range<UInt64>,
        spares: [Range<UInt64>], retention: Int,
        retentionAge: Duration?, queueLimit: Int, writePatience: Duration, readerPatience: Duration, turnPatience: Duration, sharedCleanupEvery: Int,
        logger: Logger
    ) {
        self.writePatience = writePatience
        self.turnPatience = turnPatience
        self.readerPatience = readerPatience
        self.sharedCleanupEvery = sharedCleanupEvery
        pool = Mutex((client, runTask))
        self.location = location
        self.eventLoopGroup = eventLoopGroup
        self.retention = retention
        self.retentionAge = retentionAge
        self.logger = logger
        leases = Mutex(Leases(next: firstBlock.lowerBound, end: firstBlock.upperBound, spares: spares))
        queue = WriteBehind<PostgresRowBatch>(queueLimit: queueLimit, carry: SharedSlots())
        relayWrites = RelayWriteQueue(report: { [logger] line in logger.warning("\(line)") })
    }

    /// Connects, brings the schema up to date and leases the first ids. An unreachable database is
    /// refused at once with one line that names it (never its password). After every
    /// `sharedCleanupEvery` shared fields this instance introduces (new connections, new provider
    /// tokens; by default 1 000, or a tenth of `retention` if more), a batch also deletes the
    /// shared rows no delivery names any more. A database that does not answer the start (its schema
    /// brought up to date) within `connectPatience` is refused. A read waits up to `readerPatience`
    /// for what was recorded before it to be committed. A Live Activity push's fleet-wide turn
    /// waits up to `turnPatience` for the push to be answered.
    public static func connect(
        _ location: PostgresLocation, retention: Int = 10_000, retentionAge: Duration? = nil, queueLimit: Int = 100_000,
        writePatience: Duration = .seconds(10), connectPatience: Duration = defaultConnectPatience, readerPatience: Duration = .seconds(5),
        turnPatience: Duration = defaultTurnPatience, eventLoopGroup: any EventLoopGroup = PostgresClient.defaultEventLoopGroup,
        sharedCleanupEvery: Int? = nil,
        logger: Logger = Logger(label: "pushmock.postgres")
    ) async throws -> PostgresDeliveryStore {
        precondition(retention > 0)
        let (client, runTask) = makePool(location, on: eventLoopGroup)
        do {
            // The pool retries a refused connection for ever; a start gives it ``connectPatience``.
            // Meanwhile one connection of our own hears a refusal from the server itself (a wrong
            // password, a database that does not exist) at once, instead of after the patience.
            try await withThrowingTaskGroup(of: String?.self) { group in
                group.addTask {
                    try await Self.within(connectPatience) { try await PostgresSchema.migrate(client, logger: logger) }
                    return nil
                }
                group.addTask { await Self.serverRefusal(location, on: eventLoopGroup) ?? "" }
                while let finished = try await group.next() {
                    if finished == nil { break }
                    if let refusal = finished, !refusal.isEmpty { throw StoreError(refusal) }
                }
                group.cancelAll()
            }
            var blocks: [Range<UInt64>] = []
            for _ in 0...spareBlocks { blocks.append(try await leaseBlock(client)) }
            let store = PostgresDeliveryStore(
                client: client, runTask: runTask, location: location, eventLoopGroup: eventLoopGroup, firstBlock: blocks[0],
                spares: Array(blocks.dropFirst()), retention: retention, retentionAge: retentionAge,
                queueLimit: queueLimit, writePatience: writePatience, readerPatience: readerPatience, turnPatience: turnPatience,
                sharedCleanupEvery: sharedCleanupEvery ?? SharedRows.cleanupDefault(retention: retention), logger: logger
            )
            // Listening before the snapshots are read: none saved by another instance meanwhile is missed.
            let listening = WaitSignal()
            store.startListening(ready: listening)
            guard await listening.result(timeout: connectPatience, cancel: {}) else {
                store.listenTask.withLock { $0 }?.cancel()
                throw StoreError("no answer within \(connectPatience.components.seconds) s")
            }
            // What the first read found is what the caller reads next: not told again when it observes.
            store.snapshots.withLock { $0.unobserved = [] }
            store.relayWrites.start { [weak store] batch in try await store?.writeRelays(batch) }
            // The writer keeps the store until it is closed; trouble is logged once a second.
            store.queue.start(
                { batch in try await store.write(batch) },
                report: { line, trouble in
                    if trouble { logger.warning("PostgreSQL at \(location): \(line)") } else { logger.notice("PostgreSQL at \(location): \(line)") }
                })
            return store
        } catch {
            runTask.cancel()
            // The pool retries a refused connection quietly, so its error is "no answer": one
            // connection of our own says what PostgreSQL said (too many clients, a wrong password).
            var reason = Self.describe(error)
            if let refusal = await Self.probe(location, on: eventLoopGroup, logger: logger) { reason = refusal }
            throw StoreError("cannot use PostgreSQL at \(location): \(reason)")
        }
    }

    /// What the server itself answered when one connection to `location` was refused (a FATAL
    /// error: authentication, a missing database, too many clients); nil when it connected, or
    /// got no answer from a server (not up yet: the pool keeps trying).
    static func serverRefusal(_ location: PostgresLocation, on eventLoopGroup: any EventLoopGroup) async -> String? {
        guard let error = await connectOnce(location, on: eventLoopGroup) as? PSQLError, error.serverInfo?[.message] != nil else { return nil }
        return describe(error)
    }

    /// Why one connection to `location` fails, if it does (within 5 s).
    static func probe(_ location: PostgresLocation, on eventLoopGroup: any EventLoopGroup, logger: Logger) async -> String? {
        await connectOnce(location, on: eventLoopGroup).map(describe)
    }

    /// One connection to `location`, closed at once: nil when it connected, else why not.
    private static func connectOnce(_ location: PostgresLocation, on eventLoopGroup: any EventLoopGroup) async -> (any Error)? {
        do {
            let connection = try await PostgresConnection.connect(
                on: eventLoopGroup.any(), configuration: location.connectionConfiguration, id: 0,
                logger: Logger(label: "pushmock.postgres.probe", factory: { _ in SwiftLogNoOpLogHandler() })
            )
            try? await connection.close()
            return nil
        } catch {
            return error
        }
    }

    /// A pool for `location`, running.
    static func makePool(_ location: PostgresLocation, on eventLoopGroup: any EventLoopGroup) -> (PostgresClient, Task<Void, Never>) {
        let client = PostgresClient(
            configuration: location.clientConfiguration, eventLoopGroup: eventLoopGroup,
            backgroundLogger: Logger(label: "pushmock.postgres", factory: { _ in SwiftLogNoOpLogHandler() }))
        return (client, Task { await client.run() })
    }

    /// Puts a fresh pool in place of the one in use. The old one is left running, not cancelled:
    /// cancelling a pool whose connection hangs in a query was seen to trip a fatal error in
    /// postgres-nio's connection state machine ("Invalid query state machine action in state:
    /// .closing"), so its connections are left to time out (at most one pool per write that got
    /// no answer for ``writePatience``).
    func replacePool() {
        let (client, run) = Self.makePool(location, on: eventLoopGroup)
        let old = pool.withLock { pool in
            defer { pool = (client, run) }
            return pool
        }
        abandonedPools.withLock { $0.append(old) }
        // The listener may hang on the old pool too: it listens again on the new one.
        listenTask.withLock { $0 }?.cancel()
        startListening()
        logger.notice("PostgreSQL at \(location): a write got no answer; connecting afresh")
    }

    /// How long a start waits for the database before it is refused, unless told otherwise.
    public static let defaultConnectPatience: Duration = .seconds(10)

    /// `operation`, or an error once `limit` passes.
    @discardableResult
    static func within<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            let finished = try await group.next() ?? nil
            group.cancelAll()
            guard let finished else { throw StoreError("no answer within \(limit.components.seconds) s") }
            return finished
        }
    }

    /// One line for a PostgreSQL error (PSQLError hides everything in its description).
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] { return message }
        if let underlying = error.underlying { return "\(underlying)" }
        return "\(error.code)"
    }

    static func leaseBlock(_ client: PostgresClient) async throws -> Range<UInt64> {
        let rows = try await client.query("SELECT nextval('pushmock_id_block')")
        for try await number in rows.decode(Int64.self) {
            let start = UInt64(number - 1) * idBlock + 1
            return start..<(start + idBlock)
        }
        throw StoreError("the id sequence answered nothing")
    }

    /// Waits until everything this instance recorded so far is committed.
    public func flush() async {
        await queue.flush()
    }

    /// Writes what is queued (SIGTERM), giving up after ``closePatience`` if the database is gone.
    public func close() async throws {
        let snapshotsWritten = WaitSignal()
        Task {
            while let writer = snapshotQueue.withLock({ $0.writer }) { await writer.value }
            snapshotsWritten.finish(true)
        }
        if await !snapshotsWritten.result(timeout: Self.closePatience, cancel: {}) {
            snapshotQueue.withLock { $0.writer?.cancel() }
        }
        await queue.close(patience: Self.closePatience)
        await relayWrites.flush(within: Self.closePatience)
        let (_, dropped, failure) = queue.statistics
        if let failure, dropped > 0 {
            logger.error("closing: PostgreSQL at \(location) is unreachable; \(dropped) deliveries were not kept", metadata: ["error": "\(failure)"])
        }
        listenTask.withLock { $0 }?.cancel()
        let run = pool.withLock { $0.run }
        run.cancel()
        // The pool's connections run on the server's event loops, which shut down next: wait
        // (briefly) until the pool has closed them, so that none is left to a loop that is gone.
        let stopped = WaitSignal()
        Task {
            await run.value
            stopped.finish(true)
        }
        _ = await stopped.result(timeout: Self.poolStopPatience, cancel: {})
    }

    /// How long closing waits for the pool to close its connections.
    static let poolStopPatience: Duration = .seconds(3)
}
