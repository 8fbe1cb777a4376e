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

    /// Creates a record.
    public init(bundleID: String? = nil, environment: APNSEnvironment? = nil, state: State = .active, fcmProject: String? = nil, liveActivity: LiveActivityTokenKind? = nil) {
        self.bundleID = bundleID
        self.environment = environment
        self.state = state
        self.fcmProject = fcmProject
        self.liveActivity = liveActivity
    }
}
