import Synchronization

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

/// Device tokens with a known state, shared by every connection (APNs and FCM).
public final class DeviceRegistry: Sendable {
    private let records = Mutex<[String: DeviceRecord]>([:])
    /// When closed, tokens without a record are `BadDeviceToken`.
    public let closed: Bool

    /// Creates a registry.
    public init(closed: Bool = false, records: [String: DeviceRecord] = [:]) {
        self.closed = closed
        self.records.withLock { $0 = Dictionary(uniqueKeysWithValues: records.map { (Self.key($0.key), $0.value) }) }
    }

    /// Tokens are compared case-insensitively (uppercase hex from clients is common).
    static func key(_ token: String) -> String { token.lowercased() }

    /// The record of `token`, if any.
    public func record(for token: String) -> DeviceRecord? {
        records.withLock { $0.isEmpty ? nil : $0[Self.key(token)] }
    }

    /// Sets or replaces a record.
    public func set(_ record: DeviceRecord, for token: String) {
        records.withLock { $0[Self.key(token)] = record }
    }

    /// Removes a record.
    @discardableResult
    public func remove(_ token: String) -> DeviceRecord? {
        records.withLock { $0.removeValue(forKey: Self.key(token)) }
    }

    /// Every record.
    public var all: [String: DeviceRecord] { records.withLock { $0 } }
}
