/// `{"status": "ok"}` of the health routes.
public struct HealthStatus: Codable, Sendable {
    public var status: String
}
