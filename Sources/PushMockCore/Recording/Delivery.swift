@_exported import PushMockHTTP

/// One request PushMock received, with how it was judged. Every request to a push endpoint
/// produces exactly one.
public struct Delivery: Sendable, Identifiable {
    /// Which service a delivery went to.
    public struct Service: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let apns = Service(rawValue: "apns")
        public static let fcm = Service(rawValue: "fcm")
        public static let oauth = Service(rawValue: "oauth")
        public static let broadcast = Service(rawValue: "broadcast")
        /// FCM topic management: Instance ID's `/iid/…` and FCM's `registrations/{token}/topicSubscriptions`.
        public static let iid = Service(rawValue: "iid")
        /// Web Push (RFC 8030) to a minted subscription, as Apple's, Mozilla's or Google's push service.
        public static let webpush = Service(rawValue: "webpush")
        /// Every service.
        public static let all: [Service] = [.apns, .fcm, .oauth, .broadcast, .iid, .webpush]
    }

    /// How a request ended (DESIGN.md, "Outcomes").
    public enum Outcome: String, Sendable, Hashable, Codable, CaseIterable {
        /// The real service would answer 2xx and a device would apply it.
        case accepted
        /// 2xx on the wire, but a device would discard it.
        case dropped
        /// The real service's error status and reason.
        case rejected
    }

    /// A sequence number, unique in the store and increasing: the cursor of the inspection API.
    public var id: UInt64
    /// When it arrived, in milliseconds since the epoch.
    public var receivedAt: Int64
    /// The connection it came on.
    public var connectionID: UInt64
    /// `HTTP/2` or `HTTP/1.1`.
    public var httpVersion: String
    /// The service.
    public var service: Service
    /// `sandbox` or `production` (APNs), when known.
    public var environment: String?
    /// The method.
    public var method: String
    /// The path.
    public var path: String
    /// The headers in arrival order.
    public var headers: [HeaderField]
    /// The body bytes (as far as they were read).
    public var body: [UInt8]
    /// The body is a JSON object.
    public var bodyIsJSON: Bool
    /// Who sent it: `TEAMID/KEYID`, a certificate subject, or an FCM service account.
    public var identity: String?
    /// APNs push type.
    public var pushType: String?
    /// APNs topic.
    public var topic: String?
    /// The device token (APNs) or registration token (FCM).
    public var deviceToken: String?
    /// The `apns-id` answered.
    public var apnsID: String?
    /// The outcome.
    public var outcome: Outcome
    /// The HTTP status answered.
    public var status: Int
    /// The error reason answered (or, for `dropped`, why a device would drop it).
    public var reason: String?
    /// A human explanation of the reason, including what to register when PushMock's own
    /// registry caused it.
    public var explanation: String?
    /// Non-fatal findings.
    public var diagnostics: [String]
    /// The id of the fault rule that changed the answer, if one did.
    public var fault: String?
    /// The FCM project (FCM and OAuth deliveries).
    public var project: String?
    /// The simulated Live Activity the push reached (its push token, or `local-<n>`).
    public var activityID: String?
    /// The activity push token a simulated device issued for a start with `input-push-token: 1`,
    /// as the app would report it to its server.
    public var issuedActivityToken: String?
    /// For an FCM send to a topic or a condition: the registration tokens it would reach (its
    /// fan-out), sorted; empty when nobody is subscribed. `nil` for every other request.
    public var recipients: [String]?
    /// What the relay's upstream answered, once it has (nil: not forwarded, or not yet).
    public var relay: RelayResult?
}

// The initializer lives in an extension so that it can hand everything to the implicit memberwise
// initializer: an initializer that assigns the fields one by one builds the value on the stack and
// then copies it out and destroys the original (Swift 6.3 at -O: one retain and one release per
// reference-counted field, ~16 atomic operations per push for `Delivery`). See docs/performance.md.
extension Delivery {
    /// Creates a delivery (the store assigns `id`).
    public init(
        receivedAt: Int64, connectionID: UInt64, httpVersion: String, service: Service, environment: String? = nil,
        method: String, path: String, headers: [HeaderField], body: [UInt8], bodyIsJSON: Bool = false,
        identity: String? = nil, pushType: String? = nil, topic: String? = nil, deviceToken: String? = nil,
        apnsID: String? = nil, outcome: Outcome, status: Int, reason: String? = nil, explanation: String? = nil,
        diagnostics: [String] = [],
        fault: String? = nil,
        project: String? = nil, activityID: String? = nil, issuedActivityToken: String? = nil, recipients: [String]? = nil
    ) {
        self.init(
            id: 0, receivedAt: receivedAt, connectionID: connectionID, httpVersion: httpVersion, service: service,
            environment: environment, method: method, path: path, headers: headers, body: body, bodyIsJSON: bodyIsJSON,
            identity: identity, pushType: pushType, topic: topic, deviceToken: deviceToken, apnsID: apnsID, outcome: outcome,
            status: status, reason: reason, explanation: explanation, diagnostics: diagnostics, fault: fault, project: project,
            activityID: activityID, issuedActivityToken: issuedActivityToken, recipients: recipients, relay: nil
        )
    }
}
