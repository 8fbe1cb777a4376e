/// `GET /api/v1/deliveries`: newest first.
public struct DeliveryList: Codable, Sendable {
    public var deliveries: [DeliveryResource]
    /// How many match in all.
    public var total: Int
    public var newestId: UInt64?
    public var oldestId: UInt64?
}
