public import PushMockCore

/// The FCM and OAuth side of the configuration.
public struct FCMConfiguration: Sendable {
    /// Service account key files (Google's JSON format), or their JSON text.
    public var serviceAccounts: [APNSConfiguration.Key.Source] = [.file("Certs/\(DevCertificates.FileName.fcmServiceAccount)")]
    /// The path of the OAuth2 token endpoint on the push port.
    public var tokenPath = "/token"
    /// Token audiences accepted besides Google's `https://oauth2.googleapis.com/token` (PushMock's own
    /// token URLs; `https://localhost:<port><tokenPath>` and `https://127.0.0.1:<port><tokenPath>`
    /// are always accepted).
    public var extraTokenAudiences: [String] = []
    /// `expires_in` of issued access tokens (Google: 3599).
    public var accessTokenLifetime: Duration = .seconds(3599)
    /// Require registration tokens shaped like real ones (`<id>:APA91b…`, 100+ characters).
    public var strictRegistrationTokens = true
    /// Instance ID (`/iid/…`) requires `access_token_auth: true` beside the bearer token, as Google
    /// documents it (without it Instance ID reads the token as a retired server key: 401).
    public var requireAccessTokenAuth = true
    /// What the Instance ID server API (`/iid/…`) is: available, as it is until Google turns it
    /// down (2027-09-29), or turned down, answered as PushMock expects Google to answer then.
    public var instanceID: InstanceIDMode = .available
    /// FCM takes a registration token or installation ID inactive this long for stale and answers
    /// 404 `UNREGISTERED` (Google: 270 days). Applies to devices with a `lastActiveAt`; nil: never.
    public var staleTokenAfter: Duration? = .seconds(270 * 86_400)

    /// OAuth clients whose refresh tokens (`authorized_user` credentials, `grant_type=refresh_token`)
    /// the token endpoint takes: PushMock's sample client and the Google Cloud SDK's, by default.
    public var userClients: [OAuthUserClient] = OAuthUserClient.defaults
    /// The refresh tokens that are live; nil: any real-shaped one (`1//` and 40+ characters).
    public var refreshTokens: [String]?
    /// Projects a user's token may name as its quota project (`x-goog-user-project`) besides the
    /// service accounts' own. Any other is refused as Google refuses a project the caller has no
    /// rights in (403), or one that cannot exist (400).
    public var userProjects: [String] = []

    public init() {}
}

/// The Instance ID server API's state (``FCMConfiguration/instanceID``).
public enum InstanceIDMode: String, Sendable, CaseIterable {
    /// Served as today, with a dated diagnostic on every call naming its turn-down.
    case available
    /// Every call answered as a turned-down API: `DeprecatedApi` (PushMock's choice, from what the
    /// legacy send API answered once Google had turned it down).
    case turnedDown = "turned-down"
}
