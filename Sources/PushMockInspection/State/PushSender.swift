public import PushMockCore

/// One request for the push port.
public struct OutgoingRequest: Sendable, Hashable {
    public var method: String
    public var path: String
    public var headers: [HeaderField]
    public var body: [UInt8]
    /// The `:authority` it is judged as carrying (`POST /api/v1/check`; nil: `localhost`): a Web
    /// Push VAPID token's `aud` is checked against it. A sender sets its own.
    public var authority: String?

    public init(method: String, path: String, headers: [HeaderField], body: [UInt8], authority: String? = nil) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.authority = authority
    }
}

/// The push port's answer to one request.
public struct SentResponse: Sendable, Hashable {
    public var status: Int
    public var body: [UInt8]

    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}

/// Sends requests through the server's own push port, as a client would (the catalogue's
/// "Send it" and a delivery's "Send again"). The server implements it with a real HTTP/2 client.
public protocol PushSender: Sendable {
    /// Sends `requests` in order on one new connection; one answer each.
    func send(_ requests: [OutgoingRequest]) async throws -> [SentResponse]
    /// The `:authority` the requests carry (`127.0.0.1:2197`): a Web Push VAPID token's `aud`
    /// names its origin.
    var authority: String { get }
}

extension PushSender {
    /// `localhost`, for a sender that does not say.
    public var authority: String { "localhost" }
}

/// What the catalogue signs with: the server's own APNs key and FCM service account, when it was
/// configured with their private halves (the sample ones in `Certs/` are).
public struct CatalogueCredentials: Sendable {
    /// An APNs key that signs provider tokens, and a topic of its team.
    public struct APNS: Sendable {
        public var keyID: String
        public var teamID: String
        public var pem: String
        public var topic: String
        public init(keyID: String, teamID: String, pem: String, topic: String) {
            self.keyID = keyID
            self.teamID = teamID
            self.pem = pem
            self.topic = topic
        }
    }

    /// A service account key file (with `private_key`) and PushMock's token path.
    public struct FCM: Sendable {
        public var json: String
        public var tokenPath: String
        public init(json: String, tokenPath: String) {
            self.json = json
            self.tokenPath = tokenPath
        }
    }

    public var apns: APNS?
    public var fcm: FCM?

    public init(apns: APNS? = nil, fcm: FCM? = nil) {
        self.apns = apns
        self.fcm = fcm
    }
}

/// What the push port would answer a request, judged without recording it (`POST /api/v1/check`).
public struct PushCheck: Sendable {
    /// The status the push port would answer.
    public var status: Int
    /// The answer's body.
    public var body: [UInt8]
    /// The delivery the push port would record (id 0: it is not recorded).
    public var delivery: Delivery

    public init(status: Int, body: [UInt8], delivery: Delivery) {
        self.status = status
        self.body = body
        self.delivery = delivery
    }
}
