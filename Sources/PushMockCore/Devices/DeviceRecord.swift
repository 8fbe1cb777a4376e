/// What PushMock knows about one device token (optional: unknown tokens are accepted unless the
/// registry is closed).
public struct DeviceRecord: Sendable, Hashable, Codable {
    /// The state of a token.
    public enum State: Sendable, Hashable, Codable {
        /// Delivers.
        case active
        /// `410 Unregistered` with this timestamp (milliseconds since the epoch).
        case unregistered(sinceMilliseconds: Int64)
        /// `410 ExpiredToken`.
        case expired
    }

    /// The app the token belongs to (`DeviceTokenNotForTopic` for another topic's bundle id).
    public var bundleID: String?
    /// The environment the token was issued for (`BadDeviceToken` in the other one).
    public var environment: APNSEnvironment?
    /// The state.
    public var state: State
    /// For FCM registration tokens: the project (sender) the token belongs to
    /// (`SENDER_ID_MISMATCH` for another).
    public var fcmProject: String?
    /// For Live Activities: a push-to-start token (for an attributes type) or an activity token;
    /// `nil` accepts both kinds.
    public var liveActivity: LiveActivityTokenKind?
    /// For FCM registration tokens and installation IDs: when the app last connected to FCM
    /// (milliseconds since the epoch). FCM answers 404 `UNREGISTERED` for a token inactive for
    /// longer than its stale limit (270 days); `nil` is active now.
    public var lastActiveMilliseconds: Int64?
    /// Whether the token's app is running (in the foreground or the background): a Live
    /// Activity's budget of updates while its app is not running
    /// (``LiveActivityDevice/Limits/backgroundBudget``) counts only when it is not; `nil` (unknown)
    /// counts as not running.
    public var appRunning: Bool?

    /// Creates a record.
    public init(
        bundleID: String? = nil, environment: APNSEnvironment? = nil, state: State = .active, fcmProject: String? = nil,
        liveActivity: LiveActivityTokenKind? = nil,
        lastActiveMilliseconds: Int64? = nil
    ) {
        self.bundleID = bundleID
        self.environment = environment
        self.state = state
        self.fcmProject = fcmProject
        self.liveActivity = liveActivity
        self.lastActiveMilliseconds = lastActiveMilliseconds
    }

    /// Whether FCM would take the token for stale at `nowMilliseconds`: it was last active more than
    /// `limitMilliseconds` ago (`nil` limit: never).
    public func isStale(nowMilliseconds: Int64, limitMilliseconds: Int64?) -> Bool {
        guard let limitMilliseconds, let lastActiveMilliseconds else { return false }
        let (age, overflow) = nowMilliseconds.subtractingReportingOverflow(lastActiveMilliseconds)
        return !overflow && age > limitMilliseconds
    }
}
