import Crypto
import Foundation
import PushMockCore
import Synchronization
import _CryptoExtras

/// The relay's own APNs provider token: signed with the relay's key, renewed every 30 minutes
/// (APNs refuses tokens older than an hour and answers TooManyProviderTokenUpdates to ones renewed
/// more often than every 20).
final class RelayProviderToken: Sendable {
    static let lifetime: Int64 = 30 * 60
    private let key: P256.Signing.PrivateKey
    private let keyID: String
    private let teamID: String
    private let current = Mutex<(token: String, issuedAt: Int64)?>(nil)

    init(pem: String, keyID: String, teamID: String) throws {
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw PushMockError(
                code: .invalidConfiguration, message: "relay: the APNs key \(keyID) is not a P-256 private key in PEM (.p8): \(error)")
        }
        self.keyID = keyID
        self.teamID = teamID
    }

    /// The token to send now, signed again once the last one is 30 minutes old.
    func token(now: Int64) throws -> String {
        if let kept = current.withLock({ $0 }), now - kept.issuedAt < Self.lifetime, now >= kept.issuedAt { return kept.token }
        let token = try ProviderToken.sign(keyID: keyID, teamID: teamID, issuedAt: now, key: key)
        current.withLock { $0 = (token, now) }
        return token
    }
}

/// The relay's own FCM service account: its project, and an OAuth access token from its
/// `token_uri` (a JWT-bearer grant), fetched once for every caller and renewed a minute before it
/// expires.
actor RelayAccessToken {
    struct Account: Sendable {
        var projectID: String
        var clientEmail: String
        var privateKeyID: String
        var privateKey: _RSA.Signing.PrivateKey
        var tokenURI: String
    }

    static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    let account: Account
    private let post: @Sendable (_ url: String, _ form: String) async throws -> (status: Int, body: [UInt8])
    private var current: (token: String, expiresAt: ContinuousClock.Instant)?
    private var fetching: Task<(String, ContinuousClock.Instant), any Error>?

    init(account: Account, post: @escaping @Sendable (_ url: String, _ form: String) async throws -> (status: Int, body: [UInt8])) {
        self.account = account
        self.post = post
    }

    /// Reads a service account key file (Google's JSON), keeping what signing needs.
    static func account(json text: String) throws -> Account {
        func fail(_ why: String) -> PushMockError {
            PushMockError(code: .invalidConfiguration, message: "relay: the FCM service account \(why)")
        }
        guard let root = JSONValue.parse(Array(text.utf8)), case .object = root else { throw fail("is not a JSON object") }
        func field(_ key: String) throws -> String {
            guard case .string(let value)? = root[key], !value.isEmpty else { throw fail("has no \(key)") }
            return value
        }
        let key: _RSA.Signing.PrivateKey
        do {
            key = try _RSA.Signing.PrivateKey(pemRepresentation: try field("private_key"))
        } catch let error as PushMockError {
            throw error
        } catch {
            throw fail("private_key is not an RSA private key in PEM: \(error)")
        }
        var tokenURI = "https://oauth2.googleapis.com/token"
        if case .string(let uri)? = root["token_uri"], !uri.isEmpty { tokenURI = uri }
        return Account(
            projectID: try field("project_id"), clientEmail: try field("client_email"), privateKeyID: try field("private_key_id"), privateKey: key,
            tokenURI: tokenURI)
    }

    /// A valid access token, fetched when there is none or it expires within a minute.
    func token() async throws -> String {
        if let current, current.expiresAt > .now + .seconds(60) { return current.token }
        if let fetching { return try await fetching.value.0 }
        let task = Task { [account, post] () throws -> (String, ContinuousClock.Instant) in
            let now = Int64(Date().timeIntervalSince1970)
            let assertion = try OAuthAssertion.sign(
                key: account.privateKey, keyID: account.privateKeyID, issuer: account.clientEmail, audience: account.tokenURI, scope: Self.scope,
                issuedAt: now)
            let (status, body) = try await post(
                account.tokenURI, "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)")
            let json = JSONValue.parse(body)
            guard status == 200, case .string(let token)? = json?["access_token"] else {
                throw RelayError("OAuth at \(account.tokenURI) answered \(status): \(String(decoding: body.prefix(300), as: UTF8.self))")
            }
            let lifetime = json?["expires_in"]?.int64 ?? 3600
            return (token, .now + .seconds(lifetime))
        }
        fetching = task
        defer { fetching = nil }
        let (token, expiresAt) = try await task.value
        current = (token, expiresAt)
        return token
    }
}

/// Why a forward got no answer.
struct RelayError: Error, CustomStringConvertible, Equatable {
    let description: String
    init(_ description: String) { self.description = description }

    /// The relay is closing: not retried.
    static let shuttingDown = RelayError("the relay is shutting down")
}
