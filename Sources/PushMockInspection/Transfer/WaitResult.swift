/// `GET /api/v1/deliveries/wait`: 200 when `count` matched, 408 with what there is.
public struct WaitResult: Codable, Sendable {
    public var deliveries: [DeliveryResource]
    public var total: Int
    public var count: Int
    public var timedOut: Bool
    public var newestId: UInt64?
    /// Why it timed out.
    public var error: String?
}
