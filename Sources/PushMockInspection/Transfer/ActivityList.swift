/// `GET /api/v1/activities`: newest first.
public struct ActivityList: Codable, Sendable {
    public var activities: [ActivityResource]
    public var total: Int
}
