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
