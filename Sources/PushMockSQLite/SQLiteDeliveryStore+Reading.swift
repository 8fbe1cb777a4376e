import Foundation
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
            var found: Delivery?
            try db.forEachRow("SELECT \(Self.selection) FROM delivery WHERE id = ?", [.integer(Int64(bitPattern: id))]) { row in
                found = try Self.delivery(row)
                return false
            }
            return found
        }
    }

    public func query(_ filter: DeliveryFilter, limit: Int) async throws -> DeliveryPage {
        await flush(within: readerPatience)
        let (clause, arguments) = SQLiteFilter.whereClause(filter)
        return try await pool.read { db in
            var result: [Delivery] = []
            if filter.text == nil {
                let total = try db.integer("SELECT COUNT(*) FROM delivery \(clause)", arguments) ?? 0
                try db.forEachRow("SELECT \(Self.selection) FROM delivery \(clause) ORDER BY id DESC LIMIT \(max(0, limit))", arguments) { row in
                    if let delivery = try Self.delivery(row) { result.append(delivery) }
                    return true
                }
                return DeliveryPage(deliveries: result, total: Int(total))
            }
            var total = 0
            try db.forEachRow("SELECT \(Self.selection) FROM delivery \(clause) ORDER BY id DESC", arguments) { row in
                guard let delivery = try Self.delivery(row), filter.matches(delivery) else { return true }
                total += 1
                if result.count < limit { result.append(delivery) }
                return true
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
            guard limit > 0 else { return result }
            try db.forEachRow("SELECT \(Self.selection) FROM delivery \(clause) ORDER BY id ASC", arguments) { row in
                if let delivery = try Self.delivery(row), bounded.matches(delivery) { result.append(delivery) }
                return result.count < limit
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
                try db.execute("DELETE FROM delivery \(clause)", arguments)
                removed = db.changes
            } else {
                var doomed: [Int64] = []
                try db.forEachRow("SELECT \(Self.selection) FROM delivery \(clause)", arguments) { row in
                    if let delivery = try Self.delivery(row), filter.matches(delivery), let id = row.integer("id") { doomed.append(id) }
                    return true
                }
                for id in doomed {
                    try db.execute("DELETE FROM delivery WHERE id = ?", [.integer(id)])
                }
                removed = doomed.count
            }
            try db.execute("DELETE FROM relay WHERE id NOT IN (SELECT id FROM delivery)")
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
            // Cancelled while counting what is kept (the pool stops the query): the wait ends,
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
    static func delivery(_ row: SQLiteRow) throws -> Delivery? {
        do {
            var delivery = try StoredRecord(
                id: row.integer("id") ?? 0, receivedAt: row.integer("received_at") ?? 0, connectionID: row.integer("connection_id") ?? 0,
                status: Int(row.integer("status") ?? 0), outcome: row.text("outcome") ?? "", service: row.text("service") ?? "",
                bodyIsJSON: row.integer("body_is_json") ?? 0 != 0, record: row.blob("record") ?? [], sharedID: row.integer("shared_id"),
                shared: row.blob("shared_fields")
            ).delivery(sharedTable: "the table shared")
            delivery.relay = row.blob("relay_result").flatMap { RelayResultCoding.decode($0) }
            return delivery
        } catch let damaged as UndecodableRecord {
            UndecodableRecords.skip(damaged)
            return nil
        }
    }
}
