import Foundation
import GRDB
public import PushMockCore
public import PushMockStore
import Synchronization

/// Reading: every reader first waits (a bounded time) for what was recorded before it to be committed.
extension SQLiteDeliveryStore {
    /// Waits until what was recorded before is committed, or `limit` passes (writes failing): a
    /// reader then answers from what is committed instead of hanging.
    @discardableResult
    func flush(within limit: Duration) async -> Bool {
        await queue.flush(within: limit)
    }

    public func statistics() async -> DeliveryStoreStatistics {
        // What is queued is counted once written; `/metrics` waits for that at most a second
        // (while writes fail, it shows the queue and the failure instead).
        await flush(within: .seconds(1))
        var statistics = state.withLock { DeliveryStoreStatistics(count: $0.stored, evicted: $0.evicted, waiters: $0.waiters.count) }
        (statistics.queued, statistics.dropped, statistics.failure) = queue.statistics
        return statistics
    }

    public func newestID() async throws -> UInt64 {
        state.withLock { $0.nextID - 1 }
    }

    public func delivery(id: UInt64) async throws -> Delivery? {
        await flush(within: readerPatience)
        return try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.selection) FROM delivery WHERE id = ?", arguments: [Int64(bitPattern: id)]).flatMap {
                try Self.delivery($0)
            }
        }
    }

    public func query(_ filter: DeliveryFilter, limit: Int) async throws -> DeliveryPage {
        await flush(within: readerPatience)
        let (clause, arguments) = SQLiteFilter.whereClause(filter)
        return try await pool.read { db in
            if filter.text == nil {
                let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM delivery \(clause)", arguments: arguments) ?? 0
                let rows = try Row.fetchAll(
                    db, sql: "SELECT \(Self.selection) FROM delivery \(clause) ORDER BY id DESC LIMIT \(max(0, limit))", arguments: arguments)
                return DeliveryPage(deliveries: try rows.compactMap { try Self.delivery($0) }, total: total)
            }
            var result: [Delivery] = []
            var total = 0
            let cursor = try Row.fetchCursor(db, sql: "SELECT \(Self.selection) FROM delivery \(clause) ORDER BY id DESC", arguments: arguments)
            while let row = try cursor.next() {
                guard let delivery = try Self.delivery(row), filter.matches(delivery) else { continue }
                total += 1
                if result.count < limit { result.append(delivery) }
            }
            return DeliveryPage(deliveries: result, total: total)
        }
    }

    public func deliveries(after cursor: UInt64, matching filter: DeliveryFilter, limit: Int) async throws -> [Delivery] {
        await flush(within: readerPatience)
        var narrowed = filter
        narrowed.after = max(filter.after ?? 0, cursor)
        let bounded = narrowed
        let (clause, arguments) = SQLiteFilter.whereClause(bounded)
        return try await pool.read { db in
            var result: [Delivery] = []
            let rows = try Row.fetchCursor(db, sql: "SELECT \(Self.selection) FROM delivery \(clause) ORDER BY id ASC", arguments: arguments)
            while result.count < limit, let row = try rows.next() {
                if let delivery = try Self.delivery(row), bounded.matches(delivery) { result.append(delivery) }
            }
            return result
        }
    }

    @discardableResult
    public func remove(_ filter: DeliveryFilter) async throws -> Int {
        await flush()
        let (clause, arguments) = SQLiteFilter.whereClause(filter)
        let removed = try await pool.write { db -> Int in
            var removed = 0
            if filter.text == nil {
                try db.execute(sql: "DELETE FROM delivery \(clause)", arguments: arguments)
                removed = db.changesCount
            } else {
                var doomed: [Int64] = []
                let rows = try Row.fetchCursor(db, sql: "SELECT \(Self.selection) FROM delivery \(clause)", arguments: arguments)
                while let row = try rows.next() {
                    guard let delivery = try Self.delivery(row), filter.matches(delivery) else { continue }
                    let id: Int64 = row["id"]
                    doomed.append(id)
                }
                for id in doomed {
                    try db.execute(sql: "DELETE FROM delivery WHERE id = ?", arguments: [id])
                }
                removed = doomed.count
            }
            try db.execute(sql: "DELETE FROM relay WHERE id NOT IN (SELECT id FROM delivery)")
            try Self.setMeta(db, "count", Int64(max(0, try Self.count(db) - removed)))
            return removed
        }
        state.withLock { $0.stored = max(0, $0.stored - removed) }
        return removed
    }

    public func wait(for filter: DeliveryFilter, count: Int, timeout: Duration) async throws -> Bool {
        let signal = WaitSignal()
        // Registered with the id horizon under the lock: later deliveries are counted by `record`,
        // earlier ones by the query below.
        let (waiter, horizon) = state.withLock { state -> (UInt64, UInt64) in
            let id = state.waiters.add(filter, count: count) { signal.finish(true) }
            waiterCount.store(state.waiters.count, ordering: .relaxed)
            return (id, state.nextID - 1)
        }
        var existing = filter
        existing.before = min(filter.before ?? .max, horizon + 1)
        let found: Int
        do {
            found = try await query(existing, limit: 0).total
        } catch {
            removeWaiter(waiter)
            // Cancelled while counting what is kept (GRDB honours cancellation): the wait ends,
            // as a cancelled wait does, rather than failing.
            if Task.isCancelled { return false }
            throw error
        }
        let satisfied = state.withLock { state -> Bool in
            defer { waiterCount.store(state.waiters.count, ordering: .relaxed) }
            return state.waiters.credit(waiter, existing: found)
        }
        if satisfied { return true }
        return await signal.result(timeout: timeout) { [weak self] in
            self?.removeWaiter(waiter)
        }
    }

    private func removeWaiter(_ waiter: UInt64) {
        state.withLock { state in
            state.waiters.remove(waiter)
            waiterCount.store(state.waiters.count, ordering: .relaxed)
        }
    }

    /// A delivery's columns and the shared fields its row names.
    static let selection =
        "*, (SELECT fields FROM shared WHERE shared.shared_id = delivery.shared_id) AS shared_fields, (SELECT result FROM relay WHERE relay.id = delivery.id) AS relay_result"

    /// The delivery of one row; nil for a row whose bytes do not decode (skipped, counted and
    /// reported once: a damaged file never crashes a reader nor hides the other rows).
    static func delivery(_ row: Row) throws -> Delivery? {
        let record: Data = row["record"]
        let shared: Data? = row["shared_fields"]
        let relay: Data? = row["relay_result"]
        do {
            var delivery = try StoredRecord(
                id: row["id"], receivedAt: row["received_at"], connectionID: row["connection_id"], status: row["status"], outcome: row["outcome"],
                service: row["service"], bodyIsJSON: row["body_is_json"], record: Array(record), sharedID: row["shared_id"],
                shared: shared.map { Array($0) }
            ).delivery(sharedTable: "the table shared")
            delivery.relay = relay.flatMap { RelayResultCoding.decode(Array($0)) }
            return delivery
        } catch let damaged as UndecodableRecord {
            UndecodableRecords.skip(damaged)
            return nil
        }
    }
}
