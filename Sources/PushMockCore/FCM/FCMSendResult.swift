/// What the FCM validator learned from an accepted `messages:send` body.
public struct FCMSendResult: Sendable, Hashable {
    /// The message's target.
    public enum Target: Sendable, Hashable {
        case token(String)
        case topic(String)
        case condition(String)
        case fid(String)

        /// `token`, `topic`, `condition` or `fid`.
        public var kind: String {
            switch self {
            case .token: "token"
            case .topic: "topic"
            case .condition: "condition"
            case .fid: "fid"
            }
        }

        /// The target's value.
        public var value: String {
            switch self {
            case .token(let value), .topic(let value), .condition(let value), .fid(let value): value
            }
        }
    }

    /// Which member of `android_v2`'s union a message sets.
    public enum AndroidV2Kind: String, Sendable, Hashable {
        /// An urgent, user-visible notification.
        case remoteNotification = "remote_notification"
        /// A non-urgent data message.
        case backgroundSync = "background_sync"
    }

    /// `validate_only`.
    public var validateOnly = false
    /// `android_v2`'s kind, when the message has `android_v2`.
    public var androidV2Kind: AndroidV2Kind?
    /// The target.
    public var target: Target?
    /// `apns.live_activity_token`, when the message is a Live Activity message.
    public var liveActivityToken: String?
    /// `apns.headers["apns-push-type"]`.
    public var apnsPushType: String?
    /// `apns.headers["apns-topic"]`.
    public var apnsTopic: String?
    /// `apns.headers["apns-priority"]`.
    public var apnsPriority: String?
    /// `apns.headers["apns-expiration"]`.
    public var apnsExpiration: String?
    /// `apns.headers["apns-collapse-id"]`.
    public var apnsCollapseID: String?
    /// The byte range of `apns.payload` in the body.
    public var apnsPayloadRange: Range<Int>?
    /// Non-fatal findings.
    public var diagnostics: [String] = []
    /// The Live Activity rule a device would drop this message for (`apple` profile).
    public var liveActivityDrop: LiveActivityRule?
    /// What a simulated device reads from `apns.payload` (built from the one parse of the body).
    public var liveActivityPush: LiveActivityPush? {
        get { liveActivityPushBox?.push }
        set { liveActivityPushBox = .boxing(newValue) }
    }
    private var liveActivityPushBox: LiveActivityPushBox?

    public init() {}

    /// Whether this is a Live Activity message (it has `apns.live_activity_token`).
    public var isLiveActivity: Bool { liveActivityToken != nil }
}
