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

/// `GET /api/v1/service-accounts`: the FCM service accounts loaded (public parts only).
public struct ServiceAccountList: Codable, Sendable, Equatable {
    public var serviceAccounts: [Account]
    /// The OAuth token path PushMock answers.
    public var tokenPath: String

    /// A service account's public facts.
    public struct Account: Codable, Sendable, Equatable {
        public var projectId: String
        public var clientEmail: String
        public var privateKeyId: String

        public init(projectId: String, clientEmail: String, privateKeyId: String) {
            self.projectId = projectId
            self.clientEmail = clientEmail
            self.privateKeyId = privateKeyId
        }
    }

    public init(serviceAccounts: [Account], tokenPath: String) {
        self.serviceAccounts = serviceAccounts
        self.tokenPath = tokenPath
    }
}
