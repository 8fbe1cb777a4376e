/// An OAuth client whose refresh tokens the token endpoint exchanges (`grant_type=refresh_token`):
/// what `gcloud auth application-default login` writes into an `authorized_user` credentials file
/// (`client_id`, `client_secret`, `refresh_token`), and what every Google auth library sends.
///
/// ```swift
/// let client = OAuthUserClient(clientID: "1234-abc.apps.googleusercontent.com", clientSecret: "s")
/// OAuthUserClient.isRefreshTokenShaped("1//0gdemo…")  // true for Google's shape
/// ```
public struct OAuthUserClient: Sendable, Hashable {
    /// `client_id`.
    public var clientID: String
    /// `client_secret`; nil takes any (or none).
    public var clientSecret: String?

    public init(clientID: String, clientSecret: String?) {
        self.clientID = clientID
        self.clientSecret = clientSecret
    }

    /// PushMock's sample client: the one `pushmock certs` writes into `authorized-user.json`.
    /// Not a secret: it works against PushMock only.
    public static let sample = OAuthUserClient(
        clientID: "200000000001-pushmocksampleclient0000000000.apps.googleusercontent.com", clientSecret: "pushmock-sample-client-secret"
    )
    /// The Google Cloud SDK's public client (the one `gcloud auth application-default login` uses),
    /// so that a developer's own ADC file works against PushMock as it is.
    public static let googleCloudSDK = OAuthUserClient(
        clientID: "764086051850-6qr4p6gpi6hn506pt8ejuq83di341hur.apps.googleusercontent.com", clientSecret: "d-FL95Q19q7MQmFpd7hHD0Ty"
    )
    /// The clients the token endpoint knows by default.
    public static let defaults = [sample, googleCloudSDK]

    /// A refresh token as Google issues them: `1//` and at least 40 more URL-safe characters.
    public static func isRefreshTokenShaped(_ token: String) -> Bool {
        let bytes = Array(token.utf8)
        guard bytes.count >= 43, bytes.count <= 512, bytes.starts(with: Array("1//".utf8)) else { return false }
        return bytes.dropFirst(3).allSatisfy { FCMWalker.isBase64URL($0) || $0 == UInt8(ascii: ".") }
    }

    /// The project number a client id starts with (`<number>-<id>.apps.googleusercontent.com`):
    /// the consumer Google names when a user token has no quota project.
    public var projectNumber: String {
        let digits = clientID.prefix { $0.isASCII && $0.isNumber }
        return digits.isEmpty ? clientID : String(digits)
    }
}
