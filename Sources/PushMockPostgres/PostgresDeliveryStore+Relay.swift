import PostgresNIO
public import PushMockCore
import PushMockStore

/// Relay answers: written behind the relay, in one statement per batch, beside the deliveries.
extension PostgresDeliveryStore {
    public func recordRelay(_ result: RelayResult, forDelivery id: UInt64) {
        relayWrites.add(result, forDelivery: id)
    }

    func writeRelays(_ batch: [(id: UInt64, result: RelayResult)]) async throws {
        var latest: [UInt64: RelayResult] = [:]
        for (id, result) in batch { latest[id] = result }
        let ids = latest.keys.map { Int64(clamping: $0) }
        // 1 agrees, 0 disagrees, -1 unknown (postgres-nio binds arrays of non-optional values).
        let agrees = latest.keys.map { (key: UInt64) -> Int64 in latest[key]?.agrees.map { $0 ? 1 : 0 } ?? -1 }
        let results = try latest.keys.map { ByteBuffer(bytes: try RelayResultCoding.encode(latest[$0]!)) }
        try await client.query(
            """
            INSERT INTO pushmock_relay (id, agrees, result)
            SELECT id, CASE WHEN agrees < 0 THEN NULL ELSE agrees = 1 END, result
            FROM unnest(\(ids)::BIGINT[], \(agrees)::BIGINT[], \(results)::BYTEA[]) AS batch (id, agrees, result)
            ON CONFLICT (id) DO UPDATE SET agrees = excluded.agrees, result = excluded.result
            """, logger: logger)
    }
}
