import Crypto
public import Foundation
public import PushMockCore
public import PushMockServer
import Synchronization
import _CryptoExtras

/// Credentials a test needs to talk to a PushMock it started: the CA to trust, APNs provider tokens
/// (valid, expired, signed by the wrong key) and FCM service-account JWTs.
///
/// ```swift
/// let credentials = try server.credentials
/// let jwt = try credentials.apnsToken()
/// let expired = try credentials.apnsToken(issuedAt: Date().addingTimeInterval(-3700))
/// ```
public struct PushMockTestCredentials: Sendable {
    /// The CA certificate (PEM) that signed the server certificate.
    public let caCertificatePEM: String
    /// The APNs signing key (`.p8` PEM).
    public let apnsKeyPEM: String
    /// The APNs key id.
    public let apnsKeyID: String
    /// The APNs team id.
    public let apnsTeamID: String
    /// The FCM service account JSON as configured.
    public let serviceAccountJSON: String
    /// Its project id.
    public let fcmProjectID: String
    /// Its client e-mail.
    public let fcmClientEmail: String
    /// Its key id.
    public let fcmPrivateKeyID: String
    private let fcmKeyPEM: String
    /// The URL of PushMock's token endpoint (what `token_uri` should say).
    public let tokenURL: String

    /// The credentials of `server`'s configuration (in-memory material from `testing()`, or the
    /// files it names).
    public init(server: PushMockServer) throws {
        let configuration = server.configuration
        guard let material = configuration.developmentMaterial.map(Material.init) ?? Self.filesMaterial() else {
            throw PushMockTestingError("this configuration holds no development material; use PushMockConfiguration.testing() or the files in Certs/")
        }
        caCertificatePEM = material.ca
        apnsKeyPEM = material.apnsKey
        apnsKeyID = configuration.apns.keys.first?.keyID ?? DevCertificates.sampleAPNSKeyID
        apnsTeamID = configuration.apns.keys.first?.teamID ?? DevCertificates.sampleAPNSTeamID
        guard let account = try JSONSerialization.jsonObject(with: Data(material.serviceAccount.utf8)) as? [String: Any],
            let project = account["project_id"] as? String, let email = account["client_email"] as? String,
            let keyID = account["private_key_id"] as? String, let key = account["private_key"] as? String
        else {
            throw PushMockTestingError("the FCM service account is not in Google's format")
        }
        fcmProjectID = project
        fcmClientEmail = email
        fcmPrivateKeyID = keyID
        fcmKeyPEM = key
        tokenURL = "https://localhost:\(server.pushPort)\(configuration.fcm.tokenPath)"
        var rewritten = account
        rewritten["token_uri"] = tokenURL
        let data = try JSONSerialization.data(withJSONObject: rewritten, options: [.sortedKeys, .withoutEscapingSlashes])
        serviceAccountJSON = String(decoding: data, as: UTF8.self)
    }

    private struct Material {
        var ca: String
        var apnsKey: String
        var serviceAccount: String

        init(ca: String, apnsKey: String, serviceAccount: String) {
            self.ca = ca
            self.apnsKey = apnsKey
            self.serviceAccount = serviceAccount
        }

        init(_ material: DevCertificates) {
            self.init(ca: material.caCertificatePEM, apnsKey: material.apnsAuthKeyP8, serviceAccount: material.fcmServiceAccountJSON)
        }
    }

    /// The sample material in `Certs/` (a server started with the default configuration from the
    /// repository root).
    private static func filesMaterial() -> Material? {
        guard let ca = try? String(contentsOfFile: "Certs/\(DevCertificates.FileName.caCertificate)", encoding: .utf8),
            let key = try? String(contentsOfFile: "Certs/\(DevCertificates.FileName.apnsAuthKey)", encoding: .utf8),
            let account = try? String(contentsOfFile: "Certs/\(DevCertificates.FileName.fcmServiceAccount)", encoding: .utf8)
        else { return nil }
        return Material(ca: ca, apnsKey: key, serviceAccount: account)
    }

    /// A provider token signed by the configured APNs key, issued at `issuedAt` (an hour later it
    /// is `ExpiredProviderToken`). By default the same token is given again for 50 minutes after
    /// it was first issued (then a new one, issued now), as a well-behaved provider reuses one:
    /// APNs answers `429 TooManyProviderTokenUpdates` to a connection whose token changes within
    /// 20 minutes. (A token that changed at a fixed time, on the hour say, would fail a test that
    /// runs across it.)
    public func apnsToken(issuedAt: Date? = nil, keyID: String? = nil, teamID: String? = nil) throws -> String {
        let key = try P256.Signing.PrivateKey(pemRepresentation: apnsKeyPEM)
        let keyID = keyID ?? apnsKeyID
        let teamID = teamID ?? apnsTeamID
        if let issuedAt {
            return try ProviderToken.sign(keyID: keyID, teamID: teamID, issuedAt: Int64(issuedAt.timeIntervalSince1970), key: key)
        }
        let now = Int64(Date().timeIntervalSince1970)
        let name = ReusedToken.Name(key: apnsKeyPEM, keyID: keyID, teamID: teamID)
        return try ReusedToken.tokens.withLock { tokens in
            if let reused = tokens[name], now - reused.issuedAt < 3000, reused.issuedAt <= now { return reused.token }
            let token = try ProviderToken.sign(keyID: keyID, teamID: teamID, issuedAt: now, key: key)
            tokens[name] = ReusedToken(issuedAt: now, token: token)
            return token
        }
    }

    /// A provider token issued at the clock's time (for a server on a manual clock).
    public func apnsToken(clock: PushMockClock) throws -> String {
        try apnsToken(issuedAt: Date(timeIntervalSince1970: Double(clock.nowSeconds)))
    }

    /// A provider token that is an hour and a minute old: `403 ExpiredProviderToken`.
    public func expiredAPNSToken(now: Date = Date()) throws -> String {
        try apnsToken(issuedAt: now.addingTimeInterval(-3660))
    }

    /// A provider token with the configured key id but signed by another key:
    /// `403 InvalidProviderToken`.
    public func apnsTokenSignedWithWrongKey(issuedAt: Date = Date()) throws -> String {
        try ProviderToken.sign(keyID: apnsKeyID, teamID: apnsTeamID, issuedAt: Int64(issuedAt.timeIntervalSince1970), key: P256.Signing.PrivateKey())
    }

    /// A JWT assertion for the token endpoint (`grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`),
    /// with Google's audience, as google-auth sends it.
    public func fcmAssertion(issuedAt: Date = Date(), audience: String = "https://oauth2.googleapis.com/token") throws -> String {
        try OAuthAssertion.sign(
            key: try _RSA.Signing.PrivateKey(pemRepresentation: fcmKeyPEM), keyID: fcmPrivateKeyID, issuer: fcmClientEmail,
            audience: audience, scope: "https://www.googleapis.com/auth/firebase.messaging", issuedAt: Int64(issuedAt.timeIntervalSince1970)
        )
    }

    /// A self-signed service-account JWT usable directly as the bearer of `messages:send`.
    public func fcmSelfSignedBearer(issuedAt: Date = Date()) throws -> String {
        try OAuthAssertion.sign(
            key: try _RSA.Signing.PrivateKey(pemRepresentation: fcmKeyPEM), keyID: fcmPrivateKeyID, issuer: fcmClientEmail,
            audience: "https://fcm.googleapis.com/", scope: nil, issuedAt: Int64(issuedAt.timeIntervalSince1970)
        )
    }

    /// The form body of a token request for ``fcmAssertion(issuedAt:audience:)``.
    public func tokenRequestBody(issuedAt: Date = Date()) throws -> String {
        "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + (try fcmAssertion(issuedAt: issuedAt))
    }
}

/// An error of the test library (a timeout, a missing credential), with what it found.
public struct PushMockTestingError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public let description: String
    /// The matching deliveries there were when a wait timed out.
    public let found: [Delivery]

    init(_ description: String, found: [Delivery] = []) {
        self.description = description
        self.found = found
    }
}

/// The provider tokens ``PushMockTestCredentials/apnsToken(issuedAt:keyID:teamID:)`` gives again,
/// by key, key id and team, for every server of the process.
private struct ReusedToken {
    struct Name: Hashable {
        var key: String
        var keyID: String
        var teamID: String
    }

    var issuedAt: Int64
    var token: String

    static let tokens = Mutex<[Name: ReusedToken]>([:])
}
