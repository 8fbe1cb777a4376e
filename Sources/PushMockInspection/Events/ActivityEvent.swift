public import PushMockCore

/// An `activity` event of `GET /api/v1/events`: a simulated device issuing an activity push token
/// (as the app would report it to its server), or what the device did with a push.
public struct ActivityEvent: Codable, Sendable, Equatable {
    /// `activityTokenIssued` or `activityPush`.
    public var type: String
    public var deliveryId: UInt64
    /// `activityTokenIssued`: the new token, the push-to-start token and the attributes type.
    public var activityToken: String?
    public var pushToStartToken: String?
    @Nullable public var attributesType: String? = nil
    /// `activityPush`: the activity, `applied` or `dropped`, and why.
    public var activityId: String?
    public var deviceOutcome: String?
    @Nullable public var dropReason: String? = nil

    /// The events `delivery` caused (none when it reached no simulated activity).
    public static func events(of delivery: Delivery) -> [ActivityEvent] {
        guard let activityID = delivery.activityID else { return [] }
        var events: [ActivityEvent] = []
        if let token = delivery.issuedActivityToken {
            var attributesType: String?
            if case .string(let type)? = JSONValue.parse(delivery.body)?["aps"]?["attributes-type"] { attributesType = type }
            events.append(
                ActivityEvent(
                    type: "activityTokenIssued", deliveryId: delivery.id, activityToken: token,
                    pushToStartToken: delivery.deviceToken ?? "", attributesType: attributesType
                ))
        }
        events.append(
            ActivityEvent(
                type: "activityPush", deliveryId: delivery.id, attributesType: nil, activityId: activityID,
                deviceOutcome: delivery.outcome == .dropped ? "dropped" : "applied",
                dropReason: delivery.outcome == .dropped ? (delivery.reason ?? "") : nil
            ))
        return events
    }
}
