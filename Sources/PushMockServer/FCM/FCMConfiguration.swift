import PushMockCore

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

    public init() {}
}
