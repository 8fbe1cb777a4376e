import Foundation
import Logging
import NIOCore
import PostgresNIO
public import PushMockCore
import PushMockStore
import Synchronization

/// Recording: a delivery is packed and queued at once under an id from the instance's leased
/// block, and written behind in batches (one transaction each, under the fleet's write lock).
extension PostgresDeliveryStore {
    @discardableResult
    public func record(_ delivery: Delivery) -> UInt64 {
        let (id, renew) = leases.withLock { leases -> (UInt64?, Bool) in
            var renew = false
            if leases.next == leases.end, !leases.spares.isEmpty {
                // A spare block comes into use, and another spare is asked for at once.
                let spare = leases.spares.removeFirst()
                (leases.next, leases.end) = (spare.lowerBound, spare.upperBound)
                renew = !leases.requesting
                leases.requesting = true
            }
            guard leases.next < leases.end else { return (nil, renew) }
            defer { leases.next += 1 }
            return (leases.next, renew)
        }
        if renew { renewLease() }
        guard let id else {
            // No id left: the database has been away for ``spareBlocks`` blocks of pushes.
            queue.noteDropped()
            return 0
        }
        queue.enqueue(delivery, id: id)
        return id
    }

    private func renewLease() {
        Task {
            var pause = 50
            while true {
                do {
                    let block = try await Self.leaseBlock(client)
                    let more = leases.withLock { leases -> Bool in
                        leases.spares.append(block)
                        leases.requesting = leases.spares.count < Self.spareBlocks
                        return leases.requesting
                    }
                    if !more { return }
                } catch {
                    try? await Task.sleep(for: .milliseconds(pause))
                    pause = min(1000, pause * 2)
                }
            }
        }
    }

    /// Writes one batch, giving up on it after ``writePatience`` (the writer then retries it).
    func write(_ batch: PostgresRowBatch) async throws {
        let replacing = uncertain.load(ordering: .relaxed)
        let written = WaitSignal()
        let failure = Mutex<(any Error)?>(nil)
        let attempt = Task {
            do {
                try await self.writeOnce(batch, replacing: replacing)
                written.finish(true)
            } catch {
                failure.withLock { $0 = error }
                written.finish(false)
            }
        }
        if await written.result(timeout: writePatience, cancel: {}) {
            uncertain.store(false, ordering: .relaxed)
            return
        }
        uncertain.store(true, ordering: .relaxed)
        attempt.cancel()
        if let failure = failure.withLock({ $0 }) { throw failure }
        // No answer at all: the pool itself is suspect, so the retry gets a new one.
        replacePool()
        throw StoreError("no answer within \(writePatience.components.seconds) s")
    }

    /// One transaction under the fleet's write lock: (after an uncertain write, the batch's rows
    /// that are there already deleted), the insert, retention, notify.
    private func writeOnce(_ batch: PostgresRowBatch, replacing: Bool) async throws {
        let introduced = sharedIntroduced.add(batch.shared.introduced, ordering: .relaxed).newValue
        let cleanup = introduced >= sharedCleanupEvery
        let retention = Int64(retention)
        let horizon = retentionAge.map { batch.lastReceivedAt - Int64($0.milliseconds) }
        let instance = instance
        let removed = try await client.withConnection { connection in
            try await connection.withTransaction(logger: logger) { connection -> Int64 in
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.writeLock))", logger: logger)
                var replaced: Int64 = 0
                if replacing {
                    let ids = batch.ids.map { Int64(clamping: $0) }
                    replaced = try await Self.count(
                        connection.query(
                            "WITH gone AS (DELETE FROM pushmock_delivery WHERE id = ANY(\(ids)) RETURNING 1) SELECT count(*) FROM gone",
                            logger: logger)
                    )
                }
                // The shared fields this batch's rows name, where they are missing (new, or cleaned
                // up since a slot was filled), in one statement.
                if !batch.shared.rows.isEmpty { try await connection.query(Self.sharedRowsQuery(batch.shared), logger: logger) }
                try await connection.query(PostgresRows.insert(rows: batch.rows, count: batch.count), logger: logger)
                var removed: Int64 = 0
                if let horizon {
                    removed += try await Self.count(
                        connection.query(
                            "WITH gone AS (DELETE FROM pushmock_delivery WHERE received_at < \(horizon) RETURNING 1) SELECT count(*) FROM gone",
                            logger: logger)
                    )
                }
                let kept = try await Self.count(
                    connection.query(
                        "UPDATE pushmock_meta SET value = value + \(Int64(batch.count)) - \(removed + replaced) WHERE key = 'count' RETURNING value",
                        logger: logger)
                )
                if kept > retention {
                    let excess = kept - retention
                    let evicted = try await Self.count(
                        connection.query(
                            """
                            WITH gone AS (DELETE FROM pushmock_delivery WHERE seq IN (SELECT seq FROM pushmock_delivery ORDER BY seq LIMIT \(excess)) RETURNING 1)
                            SELECT count(*) FROM gone
                            """, logger: logger))
                    try await connection.query("UPDATE pushmock_meta SET value = value - \(evicted) WHERE key = 'count'", logger: logger)
                    removed += evicted
                }
                if cleanup {
                    // Shared fields no delivery names any more (the rows that named them removed).
                    // Under the write lock, after this batch's rows: a batch that names them again
                    // writes them again.
                    try await connection.query(
                        "DELETE FROM pushmock_shared WHERE shared_id NOT IN (SELECT shared_id FROM pushmock_delivery WHERE shared_id IS NOT NULL)",
                        logger: logger)
                    try await connection.query(
                        "DELETE FROM pushmock_relay WHERE NOT EXISTS (SELECT 1 FROM pushmock_delivery WHERE pushmock_delivery.id = pushmock_relay.id)",
                        logger: logger)
                }
                try await connection.query("SELECT pg_notify(\(Self.channel), \("d " + instance))", logger: logger)
                return removed
            }
        }
        evicted.add(UInt64(removed), ordering: .relaxed)
        if cleanup { sharedIntroduced.subtract(introduced, ordering: .relaxed) }
        changes.signal()
    }

    /// `INSERT … ON CONFLICT DO NOTHING` of every shared row in `shared`.
    static func sharedRowsQuery(_ shared: SharedRows) -> PostgresQuery {
        var sql = "INSERT INTO pushmock_shared (shared_id, fields) VALUES "
        var bindings = PostgresBindings(capacity: shared.rows.count * 2)
        for (index, row) in shared.rows.enumerated() {
            sql += index == 0 ? "($\(2 * index + 1), $\(2 * index + 2))" : ", ($\(2 * index + 1), $\(2 * index + 2))"
            bindings.append(row.id)
            bindings.append(ByteBuffer(bytes: row.fields.bytes))
        }
        return PostgresQuery(unsafeSQL: sql + " ON CONFLICT DO NOTHING", binds: bindings)
    }

    static func count(_ rows: PostgresRowSequence) async throws -> Int64 {
        for try await value in rows.decode(Int64.self) { return value }
        return 0
    }
}
