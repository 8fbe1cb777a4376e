/// `GET /api/v1/faults`.
public struct FaultList: Codable, Sendable {
    public var faults: [FaultResource]
}
