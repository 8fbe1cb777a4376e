public import PushMockCore

/// A device token and what PushMock knows of it, in the configuration file's device format
/// (`GET/PUT /api/v1/devices/{token}`).
public struct DeviceResource: Codable, Sendable, Equatable {
    /// The token (left out of a `PUT` body: the path names it).
    public var token: String?
    public var bundleId: String?
    /// `sandbox` or `production`.
    public var environment: String?
    /// The FCM project that owns a registration token.
    public var project: String?
    /// `active`, `expired` or `unregistered`.
    public var state: String
    /// Since when a token is unregistered (milliseconds since the epoch).
    public var unregisteredAt: Int64?
    /// `activity` or `pushToStart`.
    public var liveActivity: String?
    /// The attributes type a push-to-start token starts.
    public var attributesType: String?
    /// When an FCM token last connected (milliseconds since the epoch): a token inactive past the
    /// stale limit answers 404 `UNREGISTERED`.
    public var lastActiveAt: Int64?
    /// The FCM topics the token is subscribed to, sorted (`nil` when none).
    public var topics: [String]?
    /// Whether the token's app is running (a Live Activity's background budget counts while it is not).
    public var appRunning: Bool?

    /// `record` as the API shows it.
    public init(token: String?, _ record: DeviceRecord) {
        self.token = token
        bundleId = record.bundleID
        environment = record.environment?.rawValue
        project = record.fcmProject
        lastActiveAt = record.lastActiveMilliseconds
        appRunning = record.appRunning
        switch record.state {
        case .active: state = "active"
        case .expired: state = "expired"
        case .unregistered(let since):
            state = "unregistered"
            unregisteredAt = since
        }
        switch record.liveActivity {
        case nil: break
        case .activity: liveActivity = "activity"
        case .pushToStart(let type):
            liveActivity = "pushToStart"
            attributesType = type
        }
    }
}
