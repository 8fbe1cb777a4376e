public import PushMockCore

/// The APNs side of the configuration: keys, bundles, trust roots, environment and choices.
public struct APNSConfiguration: Sendable {
    /// A signing key to register.
    public struct Key: Sendable, Hashable {
        /// Where the key comes from.
        public enum Source: Sendable, Hashable {
            /// A `.p8` (private key) or public key PEM file.
            case file(String)
            /// PEM text.
            case pem(String)
        }

        public var keyID: String
        public var teamID: String
        public var source: Source
        public var scope: APNSSigningKey.Scope
        /// Bundle ids of a topic-specific key; `nil` for a team-scoped key.
        public var topics: [String]?

        public init(keyID: String, teamID: String, source: Source, scope: APNSSigningKey.Scope = .both, topics: [String]? = nil) {
            self.keyID = keyID
            self.teamID = teamID
            self.source = source
            self.scope = scope
            self.topics = topics
        }

        /// Parses `KEYID:TEAMID:PATH.p8[:ENV][:TOPIC,…]` (the `--apns-key` flag).
        public init(flag: String) throws {
            let parts = flag.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count >= 3, !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty else {
                throw PushMockError(code: .invalidConfiguration, message: "--apns-key \(flag): expected KEYID:TEAMID:PATH.p8[:ENV][:TOPIC,…]")
            }
            var scope = APNSSigningKey.Scope.both
            var topics: [String]?
            if parts.count >= 4, !parts[3].isEmpty {
                guard let parsed = APNSSigningKey.Scope(rawValue: parts[3]) else {
                    throw PushMockError(
                        code: .invalidConfiguration, message: "--apns-key \(flag): environment must be sandbox, production or both, got \(parts[3])")
                }
                scope = parsed
            }
            if parts.count >= 5, !parts[4].isEmpty {
                topics = parts[4].split(separator: ",").map(String.init)
            }
            guard parts.count <= 5 else {
                throw PushMockError(code: .invalidConfiguration, message: "--apns-key \(flag): too many ':' fields")
            }
            self.init(keyID: parts[0], teamID: parts[1], source: .file(parts[2]), scope: scope, topics: topics)
        }
    }

    /// A bundle id and the team that owns it.
    public struct Bundle: Sendable, Hashable {
        public var bundleID: String
        public var teamID: String
        public init(bundleID: String, teamID: String) {
            self.bundleID = bundleID
            self.teamID = teamID
        }
    }

    /// The sample bundle id of the sample team.
    public static let sampleBundleID = "com.example.app"

    /// Signing keys; by default the sample key in `Certs/`.
    public var keys: [Key] = [
        Key(
            keyID: DevCertificates.sampleAPNSKeyID, teamID: DevCertificates.sampleAPNSTeamID,
            source: .file("Certs/\(DevCertificates.FileName.apnsAuthKey)"))
    ]
    /// Bundle ids; by default `com.example.app` of the sample team (every push-type topic of it).
    public var bundles: [Bundle] = [Bundle(bundleID: sampleBundleID, teamID: DevCertificates.sampleAPNSTeamID)]
    /// PEM files of the roots client certificates must chain to; by default the dev CA.
    public var certificateTrustRoots: [APNSConfiguration.Key.Source] = [.file("Certs/\(DevCertificates.FileName.caCertificate)")]
    /// The environment when the host name does not say (`localhost`, `127.0.0.1`).
    public var defaultEnvironment: APNSEnvironment = .sandbox
    /// Checks and choices where Apple is silent.
    public var options = APNSValidationOptions()
    /// Reject device tokens that are not in the registry.
    public var closedDeviceRegistry = false
    /// Device tokens known from the start.
    public var devices: [String: DeviceRecord] = [:]
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` of a connection without a client certificate until its
    /// first valid provider token (APNs: 1).
    public var streamsBeforeAuthentication: UInt32 = 1

    /// The defaults.
    public init() {}
}
