public import Crypto

/// One APNs token-signing key as Apple issues them (`AuthKey_<KEYID>.p8`), registered with PushMock.
public struct APNSSigningKey: Sendable {
    /// Which environments a key may be used in (reference §5: team-scoped keys are one
    /// environment since 2025; legacy keys work in both).
    public enum Scope: String, Sendable, Hashable, Codable, CaseIterable {
        case both, sandbox, production

        /// Whether the key may sign for `environment`.
        public func allows(_ environment: APNSEnvironment) -> Bool {
            self == .both || rawValue == environment.rawValue
        }
    }

    /// The 10-character key id (`kid`).
    public var keyID: String
    /// The team id (`iss`) that owns the key.
    public var teamID: String
    /// The public key that verifies signatures.
    public var publicKey: P256.Signing.PublicKey
    /// Environments the key may be used in.
    public var scope: Scope
    /// For a topic-specific key, the bundle ids it may push to; `nil` for a team-scoped key.
    public var topics: [String]?

    /// Creates a key.
    public init(keyID: String, teamID: String, publicKey: P256.Signing.PublicKey, scope: Scope = .both, topics: [String]? = nil) {
        self.keyID = keyID
        self.teamID = teamID
        self.publicKey = publicKey
        self.scope = scope
        self.topics = topics
    }

    /// Reads a `.p8` private key (PKCS#8 PEM) or a public key PEM.
    public static func publicKey(fromPEM pem: String) throws -> P256.Signing.PublicKey {
        if pem.contains("PRIVATE KEY") {
            return try P256.Signing.PrivateKey(pemRepresentation: pem).publicKey
        }
        return try P256.Signing.PublicKey(pemRepresentation: pem)
    }
}
