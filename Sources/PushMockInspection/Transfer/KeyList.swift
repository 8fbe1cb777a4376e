/// `GET /api/v1/keys`: the APNs signing keys and bundles configured (never a private key).
public struct KeyList: Codable, Sendable, Equatable {
    public var keys: [Key]
    public var bundles: [Bundle]

    /// A signing key's public facts.
    public struct Key: Codable, Sendable, Equatable {
        public var keyId: String
        public var teamId: String
        /// `team` or `topics`.
        public var scope: String
        public var topics: [String]?
        /// The `.p8` file it was read from.
        public var file: String?

        public init(keyId: String, teamId: String, scope: String, topics: [String]?, file: String?) {
            self.keyId = keyId
            self.teamId = teamId
            self.scope = scope
            self.topics = topics
            self.file = file
        }
    }

    /// A bundle registered to a team.
    public struct Bundle: Codable, Sendable, Equatable {
        public var bundleId: String
        public var teamId: String

        public init(bundleId: String, teamId: String) {
            self.bundleId = bundleId
            self.teamId = teamId
        }
    }

    public init(keys: [Key], bundles: [Bundle]) {
        self.keys = keys
        self.bundles = bundles
    }
}
