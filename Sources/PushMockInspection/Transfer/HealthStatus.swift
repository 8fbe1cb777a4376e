/// `{"status": "ok"}` of the health routes; `/readyz` adds the store's state.
public struct HealthStatus: Codable, Sendable {
    public var status: String
    /// How the store is doing (`/readyz` only): `ok`, or why writes fail.
    public var store: String?
    /// Deliveries recorded and not yet written (`/readyz` only).
    public var queued: Int?
    /// Deliveries answered but not kept because the write queue was full (`/readyz` only).
    public var dropped: UInt64?
}
