/// What the inspection port asks of the server as a whole.
public protocol ServerControl: Sendable {
    /// `POST /api/v1/reset`: deliveries cleared; devices, faults, activities, channels and access
    /// tokens back to the configuration.
    func reset() async throws
    /// The Prometheus text of `GET /metrics`.
    func metrics() async -> [UInt8]
}
