import PostgresNIO
public import PushMockStore

/// `count` faults counted for the fleet: one row per fault in `pushmock_fault_fire`; a fire is
/// taken by one `UPDATE … WHERE remaining > 0` (PostgreSQL serialises them per row) and held until
/// the request that took it is answered.
extension PostgresDeliveryStore: FleetFaultCounter {
    /// How long a claim waits for fires other requests hold (and may give back) before it gives
    /// up on this one.
    static let heldPatience: Duration = .seconds(2)

    public func claimFire(_ key: String, count: Int) async throws -> FleetFire {
        let deadline = ContinuousClock.now + Self.heldPatience
        try await client.query(
            "INSERT INTO pushmock_fault_fire (key, remaining) VALUES (\(key), \(Int64(count))) ON CONFLICT (key) DO NOTHING", logger: logger)
        // One statement at a time, each on whichever pooled connection is free: a claim that waits
        // never keeps a connection from the requests settling theirs.
        var pause = 2
        while true {
            let taken = try await client.query(
                "UPDATE pushmock_fault_fire SET remaining = remaining - 1, held = held + 1 WHERE key = \(key) AND remaining > 0 RETURNING remaining",
                logger: logger)
            for try await remaining in taken.decode(Int64.self) { return .won(remaining: Int(remaining)) }
            var held: Int64 = 0
            for try await count in try await client.query("SELECT held FROM pushmock_fault_fire WHERE key = \(key)", logger: logger).decode(
                Int64.self)
            {
                held = count
            }
            if held <= 0 { return .lost(spent: true) }
            // Fires are held by requests being answered: one given back is this request's, so a
            // burst of pushes the fault does not match cannot starve one it does.
            if ContinuousClock.now >= deadline { return .lost(spent: false) }
            try await Task.sleep(for: .milliseconds(pause))
            pause = min(pause * 2, 32)
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
