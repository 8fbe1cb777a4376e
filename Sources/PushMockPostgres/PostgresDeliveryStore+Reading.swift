import NIOCore
import PostgresNIO
public import PushMockCore
public import PushMockStore
import Synchronization

/// Reading: every reader first waits (a bounded time) for what this instance recorded before it to
/// be committed, then asks the database, in commit order.
extension PostgresDeliveryStore {
    /// How long a removal waits for what was recorded before it (a write abandoned after
    /// ``writePatience`` and retried on a fresh pool fits in it).
    static let removePatience: Duration = .seconds(30)
    static let columns = """
        id, received_at, connection_id, status, outcome, service, body_is_json, record, shared_id,
        (SELECT fields FROM pushmock_shared WHERE pushmock_shared.shared_id = pushmock_delivery.shared_id),
        (SELECT result FROM pushmock_relay WHERE pushmock_relay.id = pushmock_delivery.id)
        """
    typealias Row = (Int64, Int64, Int64, Int64, String, String, Bool, ByteBuffer, Int64?, ByteBuffer?, ByteBuffer?)

    public func statistics() async -> DeliveryStoreStatistics {
        await queue.flush(within: .seconds(1))
        var statistics = DeliveryStoreStatistics(count: 0, evicted: evicted.load(ordering: .relaxed), waiters: waiting.load(ordering: .relaxed))
        (statistics.queued, statistics.dropped, statistics.failure) = queue.statistics
        // While writes fail the database is not asked (`/metrics` and `/readyz` answer at once,
        // with the count last read); otherwise it gets a second.
        var count = lastCount.load(ordering: .relaxed)
        if statistics.failure == nil,
            let read = try? await Self.within(
                .seconds(1),
                { [client] in
                    try await Self.count(client.query("SELECT value FROM pushmock_meta WHERE key = 'count'"))
                })
        {
            count = read
            lastCount.store(count, ordering: .relaxed)
        }
        statistics.count = Int(count)
        return statistics
    }

    public func newestID() async throws -> UInt64 {
        await queue.flush(within: readerPatience)
        return try await deliveries(client.query("SELECT \(unescaped: Self.columns) FROM pushmock_delivery ORDER BY seq DESC LIMIT 1")).first?.id ?? 0
    }

    public func delivery(id: UInt64) async throws -> Delivery? {
        await queue.flush(within: readerPatience)
        return try await deliveries(client.query("SELECT \(unescaped: Self.columns) FROM pushmock_delivery WHERE id = \(Int64(clamping: id))")).first
    }

    public func query(_ filter: DeliveryFilter, limit: Int) async throws -> DeliveryPage {
        await queue.flush(within: readerPatience)
        let where_ = PostgresFilter(filter)
        guard let text = PostgresFilter.swiftSide(filter) else {
            let total = try await Self.count(client.query(where_.query("SELECT count(*) FROM pushmock_delivery")))
            let rows = try await deliveries(
                client.query(where_.query("SELECT \(Self.columns) FROM pushmock_delivery", "ORDER BY seq DESC LIMIT \(max(0, limit))")))
            return DeliveryPage(deliveries: rows, total: Int(total))
        }
        var result: [Delivery] = []
        var total = 0
        try await forEach(where_.query("SELECT \(Self.columns) FROM pushmock_delivery", "ORDER BY seq DESC")) { delivery in
            guard text.matches(delivery) else { return true }
            total += 1
            if result.count < limit { result.append(delivery) }
            return true
        }
        return DeliveryPage(deliveries: result, total: total)
    }

    public func deliveries(after cursor: UInt64, matching filter: DeliveryFilter, limit: Int) async throws -> [Delivery] {
        await queue.flush(within: readerPatience)
        let where_ = PostgresFilter(filter, after: cursor)
        guard let text = PostgresFilter.swiftSide(filter) else {
            return try await deliveries(
                client.query(where_.query("SELECT \(Self.columns) FROM pushmock_delivery", "ORDER BY seq ASC LIMIT \(max(0, limit))")))
        }
        var result: [Delivery] = []
        try await forEach(where_.query("SELECT \(Self.columns) FROM pushmock_delivery", "ORDER BY seq ASC")) { delivery in
            if text.matches(delivery) { result.append(delivery) }
            return result.count < limit
        }
        return result
    }

    @discardableResult
    public func remove(_ filter: DeliveryFilter) async throws -> Int {
        // What was recorded before the removal is removed with it, so it must be committed first;
        // a database that does not take it in ``removePatience`` gets an error, not a hang.
        guard await queue.flush(within: Self.removePatience) else {
            throw StoreError(
                "PostgreSQL at \(location) has not committed the deliveries recorded before this removal within \(Self.removePatience.components.seconds) s; nothing was removed"
            )
        }
        let where_ = PostgresFilter(filter)
        let text = PostgresFilter.swiftSide(filter)
        var doomed: [Int64] = []
        if let text {
            try await forEach(where_.query("SELECT \(Self.columns) FROM pushmock_delivery")) { delivery in
                if text.matches(delivery) { doomed.append(Int64(clamping: delivery.id)) }
                return true
            }
        }
        let logger = logger
        return try await client.withConnection { connection in
            try await connection.withTransaction(logger: logger) { connection -> Int in
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.writeLock))", logger: logger)
                let removed: Int64
                if text == nil {
                    removed = try await Self.count(
                        connection.query(
                            where_.query("WITH gone AS (DELETE FROM pushmock_delivery", "RETURNING 1) SELECT count(*) FROM gone"), logger: logger))
                } else {
                    removed = try await Self.count(
                        connection.query(
                            "WITH gone AS (DELETE FROM pushmock_delivery WHERE id = ANY(\(doomed)) RETURNING 1) SELECT count(*) FROM gone",
                            logger: logger))
                }
                try await connection.query("UPDATE pushmock_meta SET value = greatest(0, value - \(removed)) WHERE key = 'count'", logger: logger)
                return Int(removed)
            }
        }
    }

    public func wait(for filter: DeliveryFilter, count: Int, timeout: Duration) async throws -> Bool {
        waiting.add(1, ordering: .relaxed)
        defer { waiting.subtract(1, ordering: .relaxed) }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            // The generation is read before looking, so a commit in between wakes the next wait.
            let seen = changes.generation
            do {
                if try await query(filter, limit: 0).total >= count { return true }
            } catch {
                // Cancelled while asking: the wait ends, as a cancelled wait does (not an error).
                if Task.isCancelled { return false }
                // The database away: a wait outlasts an outage shorter than its timeout.
                if deadline - .now <= .zero { throw error }
                try? await Task.sleep(for: min(.milliseconds(250), deadline - .now))
                continue
            }
            let left = deadline - .now
            if left <= .zero || Task.isCancelled { return false }
            await changes.wait(past: seen, timeout: left)
            if Task.isCancelled { return false }
        }
    }

    /// The deliveries of `rows`, in order.
    func deliveries(_ rows: PostgresRowSequence) async throws -> [Delivery] {
        var result: [Delivery] = []
        for try await row in rows.decode(Row.self) {
            if let delivery = try Self.delivery(row) { result.append(delivery) }
        }
        return result
    }

    /// Calls `body` with each delivery `query` reads until it returns false.
    func forEach(_ query: PostgresQuery, _ body: (Delivery) -> Bool) async throws {
        for try await row in try await client.query(query).decode(Row.self) {
            guard let delivery = try Self.delivery(row) else { continue }
            guard body(delivery) else { break }
        }
    }

    /// The delivery of one row; nil for a row whose bytes do not decode (skipped, counted and
    /// reported once: one damaged row in a fleet's database never crashes an instance).
    static func delivery(_ row: Row) throws -> Delivery? {
        let (id, receivedAt, connection, status, outcome, service, bodyIsJSON, record, sharedID, shared, relay) = row
        do {
            var delivery = try StoredRecord(
                id: id, receivedAt: receivedAt, connectionID: connection, status: Int(status), outcome: outcome, service: service,
                bodyIsJSON: bodyIsJSON,
                record: Array(record.readableBytesView), sharedID: sharedID, shared: shared.map { Array($0.readableBytesView) }
            ).delivery(sharedTable: "pushmock_shared")
            delivery.relay = relay.flatMap { RelayResultCoding.decode(Array($0.readableBytesView)) }
            return delivery
        } catch let damaged as UndecodableRecord {
            UndecodableRecords.skip(damaged)
            return nil
        }
    }
}
