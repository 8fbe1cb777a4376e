/// A Live Activity payload rule: its reason identifier (PushMock's, in Apple's `reason` style), the
/// HTTP status the `strict` profile answers with, and a one-line explanation.
public struct LiveActivityRule: Sendable, Hashable, CustomStringConvertible {
    public let reason: String
    public let status: Int
    public let explanation: String

    init(_ reason: String, _ explanation: String) {
        self.reason = reason
        self.status = 400
        self.explanation = explanation
    }

    public var description: String { "\(reason): \(explanation)" }

    public static let missingEvent = LiveActivityRule("LiveActivityMissingEvent", "aps.event is required: start, update or end")
    public static let invalidEvent = LiveActivityRule("LiveActivityInvalidEvent", "aps.event must be start, update or end")
    public static let missingTimestamp = LiveActivityRule(
        "LiveActivityMissingTimestamp", "aps.timestamp is required; the device ignores updates without it")
    public static let timestampNotInteger = LiveActivityRule(
        "LiveActivityTimestampNotInteger", "aps.timestamp must be an integer number of seconds since 1970")
    public static let timestampInMilliseconds = LiveActivityRule(
        "LiveActivityTimestampInMilliseconds", "aps.timestamp looks like milliseconds; ActivityKit wants seconds (divide by 1000)")
    public static let timestampStale = LiveActivityRule(
        "LiveActivityTimestampStale", "aps.timestamp is older than the freshness window; the device keeps newer content and drops this")
    public static let timestampInFuture = LiveActivityRule(
        "LiveActivityTimestampInFuture", "aps.timestamp is too far in the future; later real updates would be dropped as older")
    public static let missingContentState = LiveActivityRule(
        "LiveActivityMissingContentState", "aps.content-state (an object matching the app's ContentState) is required for start and update")
    public static let contentStateNotObject = LiveActivityRule("LiveActivityContentStateNotObject", "aps.content-state must be a JSON object")
    public static let missingAttributesType = LiveActivityRule(
        "LiveActivityMissingAttributesType", "a start needs aps.attributes-type, the Swift type name of the ActivityAttributes")
    public static let missingAttributes = LiveActivityRule(
        "LiveActivityMissingAttributes", "a start needs aps.attributes, an object of the static attributes")
    public static let missingAlert = LiveActivityRule("LiveActivityMissingAlert", "a start needs aps.alert with title and body")
    public static let soundOutsideAlert = LiveActivityRule(
        "LiveActivitySoundOutsideAlert", "for Live Activities the sound goes inside aps.alert, not in aps")
    public static let inputPushOnlyOnStart = LiveActivityRule(
        "LiveActivityInputPushOnlyOnStart", "input-push-token and input-push-channel are only allowed on start")
    public static let invalidInputPushToken = LiveActivityRule("LiveActivityInvalidInputPushToken", "aps.input-push-token must be 1")
    public static let invalidDismissalDate = LiveActivityRule(
        "LiveActivityInvalidDismissalDate", "aps.dismissal-date must be an integer number of seconds since 1970")
    public static let invalidStaleDate = LiveActivityRule(
        "LiveActivityInvalidStaleDate", "aps.stale-date must be an integer number of seconds since 1970")
    public static let invalidRelevanceScore = LiveActivityRule("LiveActivityInvalidRelevanceScore", "aps.relevance-score must be a number")
    public static let missingAPS = LiveActivityRule("LiveActivityMissingAPS", "a Live Activity payload needs an aps object")

    /// Broadcast only: a broadcast updates or ends the activities on a channel; it cannot start one.
    public static let broadcastCannotStart = LiveActivityRule(
        "LiveActivityBroadcastCannotStart", "a broadcast can only update or end activities; start one with push-to-start")

    /// Every rule of device pushes (the broadcast-only rule is ``broadcastCannotStart``).
    public static let all: [LiveActivityRule] = [
        .missingEvent, .invalidEvent, .missingTimestamp, .timestampNotInteger, .timestampInMilliseconds, .timestampStale,
        .timestampInFuture, .missingContentState, .contentStateNotObject, .missingAttributesType, .missingAttributes,
        .missingAlert, .soundOutsideAlert, .inputPushOnlyOnStart, .invalidInputPushToken, .invalidDismissalDate,
        .invalidStaleDate, .invalidRelevanceScore, .missingAPS,
    ]
}

/// How Live Activity payload-rule violations are answered (DESIGN.md, "Outcomes").
public enum LiveActivityProfile: String, Sendable, Hashable, CaseIterable, Codable {
    /// Rejected: 400 with the rule's reason and a description.
    case strict
    /// Wire-faithful: 200 as Apple answers, recorded as dropped by the device with the rule's reason.
    case apple
}

/// The freshness window and profile.
public struct LiveActivityOptions: Sendable, Hashable {
    public var profile: LiveActivityProfile = .strict
    /// A timestamp older than this before now is stale.
    public var maxAge: Duration = .hours(1)
    /// A timestamp more than this after now is in the future ("now + 60 s" passes).
    public var maxAhead: Duration = .seconds(300)
    /// An update or end carrying `input-push-token` or `input-push-channel`: false (the default)
    /// applies ``LiveActivityRule/inputPushOnlyOnStart``; true takes the push and records that the
    /// device ignores the key (Apple documents neither answer).
    public var ignoreInputPushOnUpdate = false

    public init() {}
}
