import PostgresNIO
public import PushMockStore

/// `count` faults counted for the fleet: one row per fault in `pushmock_fault_fire`; a fire is
/// taken by one `UPDATE … WHERE remaining > 0` (PostgreSQL serialises them per row) and held until
/// the request that took it is answered.
extension PostgresDeliveryStore: FleetFaultCounter {
    public func claimFire(_ key: String, count: Int) async throws -> FleetFire {
        let logger = logger
        return try await client.withConnection { connection in
            try await connection.query(
                "INSERT INTO pushmock_fault_fire (key, remaining) VALUES (\(key), \(Int64(count))) ON CONFLICT (key) DO NOTHING", logger: logger)
            let taken = try await connection.query(
                "UPDATE pushmock_fault_fire SET remaining = remaining - 1, held = held + 1 WHERE key = \(key) AND remaining > 0 RETURNING remaining",
                logger: logger)
            for try await remaining in taken.decode(Int64.self) { return .won(remaining: Int(remaining)) }
            let held = try await connection.query("SELECT held FROM pushmock_fault_fire WHERE key = \(key)", logger: logger)
            for try await count in held.decode(Int64.self) { return .lost(spent: count <= 0) }
            return .lost(spent: true)
        }
    }

    public func settleFire(_ key: String, used: Bool) async throws -> Bool {
        let rows = try await client.query(
            "UPDATE pushmock_fault_fire SET held = greatest(0, held - 1), remaining = remaining + \(used ? Int64(0) : 1) WHERE key = \(key) RETURNING remaining, held",
            logger: logger)
        for try await (remaining, held) in rows.decode((Int64, Int64).self) { return remaining <= 0 && held <= 0 }
        return true
    }

    public func forgetFires() async throws {
        try await client.query("DELETE FROM pushmock_fault_fire", logger: logger)
    }
}
