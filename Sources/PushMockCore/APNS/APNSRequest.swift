/// One request to `/3/device/…` as the validator sees it: no sockets, no NIO.
public struct APNSRequest: Sendable {
    /// The method.
    public var method: String
    /// The `:path`.
    public var path: String
    /// Regular headers in arrival order, duplicates kept.
    public var headers: [HeaderField]
    /// The body (at most the transport's cap).
    public var body: [UInt8]
    /// The body was longer than the transport read.
    public var bodyTruncated: Bool
    /// The environment the host name (or configuration) selects.
    public var environment: APNSEnvironment

    /// Creates a request.
    public init(method: String, path: String, headers: [HeaderField], body: [UInt8], bodyTruncated: Bool = false, environment: APNSEnvironment) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.bodyTruncated = bodyTruncated
        self.environment = environment
    }
}

/// The validator's answer: accepted, or rejected with a reason; plus what it learned on the way.
public struct APNSVerdict: Sendable {
    /// The `apns-id` to answer with: the client's, exactly as sent, or a new one.
    public var apnsID: String
    /// `nil` when accepted.
    public var rejection: APNSRejectionReason?
    /// A one-line human explanation (for rejections caused by PushMock's registries, what to register).
    public var explanation: String?
    /// The push type (sent or inferred from the topic).
    public var pushType: APNSPushType?
    /// `apns-topic`, or the certificate's bundle id when it was omitted.
    public var topic: String?
    /// The bundle id behind the topic.
    public var bundleID: String?
    /// The device token from the path.
    public var deviceToken: String?
    /// `apns-priority` (10 when absent).
    public var priority: Int?
    /// `apns-expiration`, when sent.
    public var expiration: Int64?
    /// `apns-collapse-id`, when sent.
    public var collapseID: String?
    /// Who sent it: `team/key` for tokens, the certificate subject for certificates.
    public var identity: String?
    /// The `timestamp` (milliseconds) of a 410 `Unregistered` answer.
    public var unregisteredTimestamp: Int64?
    /// A valid credential was presented (the connection's stream limit may be raised).
    public var authenticated = false
    /// The body is a JSON object.
    public var bodyIsJSONObject = false
    /// The Live Activity rule the payload broke: the rejection in the `strict` profile, the reason a
    /// device would drop it in the `apple` profile.
    public var liveActivityRule: LiveActivityRule?
    /// Set when the push is accepted on the wire but a device would drop it (`apple` profile).
    public var droppedByDevice = false
    /// What a simulated device reads from an accepted Live Activity push (from the one parse of
    /// its payload).
    public var liveActivityPush: LiveActivityPush? {
        get { liveActivityPushBox?.push }
        set { liveActivityPushBox = .boxing(newValue) }
    }
    private var liveActivityPushBox: LiveActivityPushBox?
    /// Non-fatal findings.
    public var diagnostics: [String] = []

    /// Whether the push was accepted.
    public var isAccepted: Bool { rejection == nil }

    init(apnsID: String) {
        self.apnsID = apnsID
    }

    /// An empty verdict, for ``APNSValidator/validate(_:credential:auth:now:ids:into:)`` to fill.
    public init() {
        self.apnsID = ""
    }
}
