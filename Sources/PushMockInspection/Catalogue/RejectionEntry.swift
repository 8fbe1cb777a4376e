public import PushMockCore

/// One answer of the rejections catalogue: what Apple or Google (or a device) answers, what
/// triggers it, and the requests that really produce it through the push port. The web page's
/// catalogue and `pushmock rejections` read the same list (`GET /api/v1/rejections`).
public struct RejectionEntry: Sendable, Codable, Hashable {
    /// A stable slug (`apns-bad-priority`), used in `POST /api/v1/rejections/{id}/send`.
    public var id: String
    /// `apns`, `fcm`, `liveactivity` (an APNs Live Activity payload rule) or `webpush`.
    public var service: String
    /// The HTTP status the real service answers (for Live Activity rules: the `strict` profile's 400;
    /// the `apple` profile answers 200 and records the push as dropped).
    public var status: Int
    /// The APNs `reason`, FCM error code, Google `ErrorInfo` reason or Live Activity rule.
    public var reason: String
    /// What triggers it, in a sentence.
    public var trigger: String
    /// Where the rule is documented: Apple's or Google's page (a URL), or PushMock's docs where they are silent.
    public var reference: String
    /// The JSON path of the payload (`aps.timestamp`) or the header (`header:apns-priority`) the
    /// rule names, for highlighting.
    public var path: String?
    /// Only a fault produces it (server-side failures, connection-level answers, or credentials a
    /// sample server does not hold); "Send it" sends through a one-shot fault.
    public var viaFault: Bool
    /// Why it is sent through a fault, when it is.
    public var faultNote: String?
    /// How often a real upstream agreed with PushMock on this answer (the relay's parity records
    /// of this service and reason, one per upstream); empty until a relay forwarded such a push.
    public var parity: [ParityRecord] = []

    /// The requests sent, in order, on one connection; the last one's answer is the entry's.
    var steps: [Step]
    /// A device registry entry made for the token before sending.
    var device: DeviceSetup?
    /// The Web Push subscription a `webpush` entry mints before sending (and removes after).
    var subscription: WebPushSetup?

    /// A subscription the catalogue mints for a `webpush` entry.
    struct WebPushSetup: Sendable, Hashable {
        var service: WebPushSubscription.Service
        /// Made with the catalogue's VAPID public key as its `applicationServerKey`.
        var withKey = true
        /// Marked expired before the push.
        var expired = false
    }

    /// A device registry entry the catalogue makes before sending.
    enum DeviceSetup: Sendable, Hashable {
        /// This record.
        case record(DeviceRecord)
        /// Unregistered since now.
        case unregistered
        /// Unregistered since now, in the project the catalogue sends to.
        case unregisteredInSendingProject

        func record(project: String, nowMilliseconds: Int64) -> DeviceRecord {
            switch self {
            case .record(let record): record
            case .unregistered: DeviceRecord(state: .unregistered(sinceMilliseconds: nowMilliseconds))
            case .unregisteredInSendingProject: DeviceRecord(state: .unregistered(sinceMilliseconds: nowMilliseconds), fcmProject: project)
            }
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, service, status, reason, trigger, reference, path, viaFault, faultNote, parity
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        service = try container.decode(String.self, forKey: .service)
        status = try container.decode(Int.self, forKey: .status)
        reason = try container.decode(String.self, forKey: .reason)
        trigger = try container.decode(String.self, forKey: .trigger)
        reference = try container.decode(String.self, forKey: .reference)
        path = try container.decodeIfPresent(String.self, forKey: .path)
        viaFault = try container.decode(Bool.self, forKey: .viaFault)
        faultNote = try container.decodeIfPresent(String.self, forKey: .faultNote)
        parity = try container.decodeIfPresent([ParityRecord].self, forKey: .parity) ?? []
        steps = []
        device = nil
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(service, forKey: .service)
        try container.encode(status, forKey: .status)
        try container.encode(reason, forKey: .reason)
        try container.encode(trigger, forKey: .trigger)
        try container.encode(reference, forKey: .reference)
        try container.encode(path, forKey: .path)
        try container.encode(viaFault, forKey: .viaFault)
        try container.encode(faultNote, forKey: .faultNote)
        try container.encode(parity, forKey: .parity)
    }

    /// Whether `record` counts this entry's answer: the same service (a Live Activity rule is an
    /// APNs answer) and the same reason.
    public func counts(_ record: ParityRecord) -> Bool {
        record.reason == reason && record.service == (service == "liveactivity" ? "apns" : service)
    }

    init(
        _ id: String, _ service: String, _ status: Int, _ reason: String, trigger: String, reference: String, path: String? = nil,
        device: DeviceSetup? = nil, subscription: WebPushSetup? = nil, viaFault: String? = nil, steps: [Step]
    ) {
        self.id = id
        self.service = service
        self.status = status
        self.reason = reason
        self.trigger = trigger
        self.reference = reference
        self.path = path
        self.device = device
        self.subscription = subscription
        self.viaFault = viaFault != nil
        self.faultNote = viaFault
        self.steps = steps
    }

    /// One request of an entry. `{device}`, `{fcmToken}`, `{project}`, `{topic}`, `{now}`,
    /// `{nowMs}`, `{stale}`, `{future}` and `{big}` are replaced when it is sent, and
    /// `{subscription}` by a Web Push subscription's path.
    struct Step: Sendable, Hashable {
        var method: String
        var path: String
        var headers: [HeaderField]
        var body: String
        var auth: Auth
        /// A Web Push body is `body` sealed (RFC 8291) to these keys, or sent as it is.
        var seal: Seal = .none

        enum Seal: Sendable, Hashable {
            case none
            /// The subscription's keys.
            case subscription
            /// Another subscription's keys (the browser cannot open it).
            case otherKeys
        }

        enum Auth: Sendable, Hashable {
            /// A provider token issued `age` seconds ago by the server's own key.
            case apns(age: Int64)
            /// A provider token whose signature does not verify.
            case apnsTampered
            /// An OAuth access token from PushMock's own token endpoint.
            case fcm
            /// This `authorization` value.
            case literal(String)
            /// VAPID (`vapid t=…, k=…`) signed with the catalogue's key (or another key pair's),
            /// for `audience` (nil: the push port's origin), `exp` `expiresIn` seconds from now.
            case vapid(subject: String, audience: String? = nil, expiresIn: Int64 = 3600, otherKey: Bool = false)
            /// No `authorization` header.
            case none
        }
    }
}

/// `GET /api/v1/rejections`.
public struct RejectionList: Sendable, Codable {
    public var entries: [RejectionEntry]
    /// Every parity record, those of no entry (success, say) included: ``ParityRecord``.
    public var parity: [ParityRecord]

    public init(entries: [RejectionEntry], parity: [ParityRecord] = []) {
        self.entries = entries
        self.parity = parity
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        entries = try container.decode([RejectionEntry].self, forKey: .entries)
        parity = try container.decodeIfPresent([ParityRecord].self, forKey: .parity) ?? []
    }
}

/// The result of `POST /api/v1/rejections/{id}/send` or `POST /api/v1/deliveries/{id}/resend`.
public struct SendResult: Sendable, Codable {
    /// The catalogue entry sent (nil for a resend).
    @Nullable public var entry: String?
    /// Whether the recorded answer is the entry's (always true for a resend).
    public var produced: Bool
    /// The status the push port answered.
    public var status: Int
    /// The answer's body, as text.
    public var body: String
    /// The recorded delivery of the (last) request.
    @Nullable public var deliveryId: UInt64?
    /// Its outcome.
    @Nullable public var outcome: Delivery.Outcome?
    /// Its reason.
    @Nullable public var reason: String?
    /// Its explanation.
    @Nullable public var explanation: String?
    /// The one-shot fault used, if any.
    @Nullable public var fault: String?
}
