/// Why a simulated device drops a Live Activity push that APNs accepted (DESIGN.md: "accepted,
/// dropped by device"). These are device-side outcomes in both profiles: 200 on the wire, the
/// reason recorded on the delivery and in the activity's timeline.
public struct LiveActivityDeviceRule: Sendable, Hashable, CustomStringConvertible {
    /// The reason identifier (recorded as the delivery's `reason` and `dropReason`).
    public let reason: String
    /// One line for humans.
    public let explanation: String

    init(_ reason: String, _ explanation: String) {
        self.reason = reason
        self.explanation = explanation
    }

    public var description: String { "\(reason): \(explanation)" }

    public static let olderThanCurrentContent = LiveActivityDeviceRule(
        "LiveActivityOlderThanCurrentContent", "aps.timestamp is not newer than the content the device shows; it keeps the newer one and drops this")
    public static let afterEnd = LiveActivityDeviceRule(
        "LiveActivityAfterEnd", "the activity has ended; the device ignores updates and ends after an end")
    public static let dismissed = LiveActivityDeviceRule(
        "LiveActivityDismissed", "the activity was removed from the Lock Screen (dismissal-date passed, or 4 h after its end)")
    public static let expired = LiveActivityDeviceRule(
        "LiveActivityExpired", "the activity started more than 8 hours ago; the system ended it and ignores further pushes")
    public static let removed = LiveActivityDeviceRule(
        "LiveActivityRemoved", "the activity started more than 12 hours ago and is gone from the device")
    public static let priorityBudgetExceeded = LiveActivityDeviceRule(
        "LiveActivityPriorityBudgetExceeded",
        "more priority-10 updates this hour than the configured budget; the device throttles them (send priority 5)")
    public static let pushToStartBudgetExhausted = LiveActivityDeviceRule(
        "LiveActivityPushToStartBudgetExhausted",
        "more push-to-start creations through this token in the window than the push-to-start budget; the device rejects the creation (\"rejected creation because the push-to-start budget was exhausted\")"
    )
    public static let backgroundBudgetSpent = LiveActivityDeviceRule(
        "LiveActivityBackgroundBudgetSpent",
        "the app is not running and this activity spent its budget of priority-10 updates; the device applies no more updates to it until the app runs"
    )
    public static let startToActivityToken = LiveActivityDeviceRule(
        "LiveActivityStartToActivityToken", "a start must go to a push-to-start token; this is an activity (update) token")
    public static let updateToPushToStartToken = LiveActivityDeviceRule(
        "LiveActivityUpdateToPushToStartToken", "updates and ends go to an activity's push token; this is a push-to-start token")
    public static let attributesTypeMismatch = LiveActivityDeviceRule(
        "LiveActivityAttributesTypeMismatch", "aps.attributes-type is not the type this push-to-start token was issued for")
    public static let unknownInputPushChannel = LiveActivityDeviceRule(
        "LiveActivityUnknownInputPushChannel",
        "aps.input-push-channel names no broadcast channel of this app in this environment; ActivityKit cannot subscribe the activity to it and the start fails"
    )

    /// Every device rule.
    public static let all: [LiveActivityDeviceRule] = [
        .olderThanCurrentContent, .afterEnd, .dismissed, .expired, .removed, .priorityBudgetExceeded, .pushToStartBudgetExhausted,
        .backgroundBudgetSpent, .startToActivityToken, .updateToPushToStartToken, .attributesTypeMismatch, .unknownInputPushChannel,
    ]
}

/// What kind of Live Activity token a device token is (the registry sets it; unknown tokens accept
/// both kinds).
public enum LiveActivityTokenKind: Sendable, Hashable, Codable {
    /// A push-to-start token, optionally for one attributes type.
    case pushToStart(attributesType: String?)
    /// An activity's update token.
    case activity
}
