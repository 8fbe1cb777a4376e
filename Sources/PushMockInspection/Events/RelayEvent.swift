public import PushMockCore

/// A `relay` event of `GET /api/v1/events`: what the relay's upstream answered to a delivery
/// already sent, moments after it was recorded.
public struct RelayEvent: Codable, Sendable, Equatable {
    public var deliveryId: UInt64
    public var relay: RelayResult

    public init(deliveryId: UInt64, relay: RelayResult) {
        self.deliveryId = deliveryId
        self.relay = relay
    }
}
