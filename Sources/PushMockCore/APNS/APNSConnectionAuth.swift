import PushMockBytes

/// What one APNs connection has bound itself to (reference §5): kept per connection by the
/// server, changed only by the validator.
public struct APNSConnectionAuth: Sendable, Hashable {
    /// The team of the first authenticated push.
    public var teamID: String?
    /// The key of the first authenticated push.
    public var keyID: String?
    /// The provider token in use: its key id and `iat` (a re-signed token with the same claims
    /// is the same token; reference §14 Q6).
    public var tokenIdentity: TokenIdentity?
    /// When (seconds) the connection last switched to a new token.
    public var tokenChangedAt: Int64?

    /// A provider token's identity for the 20-minute churn rule: its key and `iat` to the
    /// millisecond (a fractional `iat` re-signed a moment later is a new token).
    public struct TokenIdentity: Sendable, Hashable {
        public var keyID: String
        public var issuedAtMilliseconds: Int64

        public init(keyID: String, issuedAtMilliseconds: Int64) {
            self.keyID = keyID
            self.issuedAtMilliseconds = issuedAtMilliseconds
        }
    }

    /// `TEAMID/KEYID` of the bound key (recorded on deliveries).
    public var identity: String?
    /// The last `authorization` value verified on this connection, and the result.
    public var lastVerification: Verification?
    /// The last bundle id this connection's team was found to own.
    public var lastAuthorizedBundle: AuthorizedBundle?
    /// The last token accepted on this connection: the same `authorization` again, to the same
    /// environment and with the registry unchanged, needs only its age checked.
    public var acceptedToken: AcceptedToken?

    /// A token accepted for an environment, while the registry had `generation`.
    public struct AcceptedToken: Sendable, Hashable {
        public var authorization: String
        public var generation: UInt64
        public var environment: APNSEnvironment
        public var issuedAt: Int64
    }

    /// A cached verification, valid while the registry's generation is unchanged.
    public struct Verification: Sendable, Hashable {
        public var authorization: String
        public var generation: UInt64
        public var result: ProviderTokenVerifier.Result
    }

    /// A cached topic authorization, valid while the registry's generation is unchanged.
    public struct AuthorizedBundle: Sendable, Hashable {
        public var bundleID: String
        public var generation: UInt64
    }

    /// The device path of the last push on this connection, as the validator read it: a
    /// connection's next push to the same device is not read again (the token's `String`, made
    /// for each push, cost about 770 instructions with its shape).
    var lastDevicePath: ReadDevicePath?

    /// The last APNs header values read on this connection that passed their checks (stage 4), and
    /// what they made: a connection's next push with the same values is not read again (about 700
    /// instructions).
    var lastHeaderReading: HeaderReading?
    /// The bundle id stage 6 found in the topic of ``lastHeaderReading`` (nil until it has).
    var lastHeaderBundleID: String?

    /// Header values (`apns-expiration`, `apns-priority`, `apns-push-type`, `apns-collapse-id`,
    /// `apns-topic`) and what stage 4 made of them. A class: looked at on every push, it is passed
    /// as one reference, not as ten strings.
    final class HeaderReading: Sendable, Hashable {
        let expiration: String?
        let priority: String?
        let pushType: String?
        let collapseID: String?
        let topic: String?
        let expirationValue: Int64?
        let priorityValue: Int
        let resolvedType: APNSPushType
        let topicText: String

        init(_ headers: APNSHeaders, expirationValue: Int64?, priorityValue: Int, resolvedType: APNSPushType, topicText: String) {
            expiration = headers.expiration
            priority = headers.priority
            pushType = headers.pushType
            collapseID = headers.collapseID
            topic = headers.topic
            self.expirationValue = expirationValue
            self.priorityValue = priorityValue
            self.resolvedType = resolvedType
            self.topicText = topicText
        }

        /// Whether `headers` carry these values (compared by their bytes).
        func reads(_ headers: APNSHeaders) -> Bool {
            expiration.hasSameUTF8(as: headers.expiration) && priority.hasSameUTF8(as: headers.priority)
                && pushType.hasSameUTF8(as: headers.pushType) && topic.hasSameUTF8(as: headers.topic)
                && collapseID.hasSameUTF8(as: headers.collapseID)
        }

        static func == (lhs: HeaderReading, rhs: HeaderReading) -> Bool { lhs === rhs }
        func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    }

    /// A device path, its shape, and its token when it has one.
    struct ReadDevicePath: Sendable, Hashable {
        let path: String
        let shape: APNSValidator.DevicePathShape
        let token: String?
    }

    /// A fresh, unbound connection.
    public init() {}

    /// Whether a valid provider token has been seen (the stream limit is then raised).
    public var isAuthenticated: Bool { tokenIdentity != nil }
}

/// What a client certificate says (reference §6), read once per connection by the server.
public struct APNSCertificateIdentity: Sendable, Hashable {
    /// The subject, for display (`UID=com.example.app, CN=Apple Push Services: …`).
    public var subject: String
    /// The subject UID: the certificate's bundle id.
    public var bundleID: String
    /// The topics of OID 1.2.840.113635.100.6.3.6, or just the UID when absent.
    public var topics: [String]
    /// The environments of OIDs …6.3.1 (sandbox) and …6.3.2 (production); empty means both.
    public var environments: Set<APNSEnvironment>

    /// Creates an identity.
    public init(subject: String, bundleID: String, topics: [String], environments: Set<APNSEnvironment>) {
        self.subject = subject
        self.bundleID = bundleID
        self.topics = topics
        self.environments = environments
    }
}

/// How a connection authenticates.
public enum APNSConnectionCredential: Sendable, Hashable {
    /// No client certificate: provider tokens.
    case token
    /// A client certificate that chains to a trusted root.
    case certificate(APNSCertificateIdentity)
    /// A client certificate that does not chain to a trusted root (`BadCertificate`).
    case untrustedCertificate(subject: String, problem: String)
}
