/// How the inspection port is configured.
public struct InspectionSettings: Sendable {
    /// `Authorization: Bearer <token>` every route but `/livez` and `/readyz` requires, if set.
    public var token: String?
    /// The DNS-rebinding and cross-site guards.
    public var browserGuard: InspectionGuard
    /// Open event streams at most.
    public var maxEventSubscribers: Int
    /// Long-polls (`/api/v1/deliveries/wait`) waiting at once, at most; one more gets 503.
    public var maxLongPolls: Int = 1000
    /// Where the push port listens (for `…/curl`).
    public var pushAddress: PushAddress
    /// `GET /api/v1/keys`.
    public var keys: KeyList
    /// `GET /api/v1/service-accounts`.
    public var serviceAccounts: ServiceAccountList
    /// How often an idle event stream gets a keep-alive comment.
    public var keepAlive: Duration
    /// `GET /api/v1/credentials`: the development credentials in use.
    public var credentials: DevelopmentCredentials = DevelopmentCredentials()
    /// The server's version, as the MCP server's `serverInfo` tells clients.
    public var version = "unknown"

    /// Creates settings.
    public init(
        token: String? = nil, browserGuard: InspectionGuard = InspectionGuard(inspectionHost: "127.0.0.1"), maxEventSubscribers: Int = 1000,
        pushAddress: PushAddress = PushAddress(host: "127.0.0.1", caFile: "Certs/ca.pem"),
        keys: KeyList = KeyList(keys: [], bundles: []),
        serviceAccounts: ServiceAccountList = ServiceAccountList(serviceAccounts: [], tokenPath: "/token"),
        keepAlive: Duration = .seconds(15)
    ) {
        self.token = token
        self.browserGuard = browserGuard
        self.maxEventSubscribers = maxEventSubscribers
        self.pushAddress = pushAddress
        self.keys = keys
        self.serviceAccounts = serviceAccounts
        self.keepAlive = keepAlive
    }
}
