import Foundation
import PushMockCore
import Testing
import _CryptoExtras

@Suite("Google's OAuth2 token endpoint (JWT bearer grant)")
struct OAuthTests {
    static let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let account = ServiceAccount(projectID: "demo", privateKeyID: "0123456789abcdef0123456789abcdef01234567", clientEmail: "sender@demo.iam.gserviceaccount.com", publicKey: key.publicKey)
    static let now: Int64 = 1_767_225_600
    static let endpoint = OAuthTokenEndpoint(accounts: [account], ownTokenPath: "/token")

    static func assertion(
        key: _RSA.Signing.PrivateKey = key, keyID: String = account.privateKeyID, issuer: String = account.clientEmail,
        audience: String = OAuthTokenEndpoint.googleAudience, scope: String? = "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/firebase.messaging",
        issuedAt: Int64 = now, lifetime: Int64 = 3600
    ) -> String {
        try! OAuthAssertion.sign(key: key, keyID: keyID, issuer: issuer, audience: audience, scope: scope, issuedAt: issuedAt, lifetime: lifetime)
    }

    static func form(_ assertion: String, grant: String = OAuthTokenEndpoint.jwtBearerGrant) -> [UInt8] {
        let encodedGrant = grant.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        return Array("grant_type=\(encodedGrant)&assertion=\(assertion)".utf8)
    }

    static func handle(_ body: [UInt8], store: AccessTokenStore = AccessTokenStore()) -> OAuthTokenEndpoint.Outcome {
        endpoint.handle(form: body, now: now, store: store)
    }

    @Test("a valid assertion gets an opaque token scoped to the account's project")
    func valid() throws {
        let store = AccessTokenStore()
        guard case .issued(let token, let expiresIn, let account, let project) = Self.handle(Self.form(Self.assertion()), store: store) else {
            Issue.record("expected a token")
            return
        }
        #expect(token.hasPrefix("ya29."))
        #expect(expiresIn == 3599)
        #expect(account == Self.account.clientEmail)
        #expect(project == "demo")
        #expect(store.grant(for: token)?.projectID == "demo")
        #expect(store.grant(for: token)?.expiresAt == Self.now + 3599)
        let (status, json) = Self.handle(Self.form(Self.assertion())).response
        #expect(status == 200)
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(object?["token_type"] as? String == "Bearer")
        #expect(object?["expires_in"] as? Int == 3599)
    }

    @Test("the mock's own token URL is an accepted audience, on any port")
    func ownAudience() {
        for audience in ["https://localhost:2197/token", "https://127.0.0.1:40001/token", "https://localhost/token"] {
            guard case .issued = Self.handle(Self.form(Self.assertion(audience: audience))) else {
                Issue.record("\(audience) refused")
                continue
            }
        }
    }

    @Test("refusals use Google's error and error_description", arguments: [
        ("bad signature", form(assertion(key: try! _RSA.Signing.PrivateKey(keySize: .bits2048))), "invalid_grant", "Invalid JWT Signature."),
        ("wrong aud", form(assertion(audience: "https://example.com/token")), "invalid_grant", "Invalid JWT: Failed audience check."),
        ("expired", form(assertion(issuedAt: now - 7200)), "invalid_grant", "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."),
        ("exp > iat + 3600", form(assertion(lifetime: 3601)), "invalid_grant", "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."),
        ("wrong grant type", form(assertion(), grant: "client_credentials"), "unsupported_grant_type", "Invalid grant_type: client_credentials"),
        ("unknown kid", form(assertion(keyID: "ffffffffffffffffffffffffffffffffffffffff")), "invalid_grant", "Invalid JWT Signature."),
        ("unknown account", form(assertion(issuer: "nobody@demo.iam.gserviceaccount.com")), "invalid_grant", "Invalid grant: account not found"),
        ("no scope", form(assertion(scope: nil)), "invalid_scope", "Invalid OAuth scope or ID token audience provided."),
        ("other scope", form(assertion(scope: "https://www.googleapis.com/auth/userinfo.email")), "invalid_scope", "Invalid OAuth scope or ID token audience provided."),
        ("not a JWT", form("garbage"), "invalid_grant", "Invalid JWT Signature."),
        ("no assertion", Array("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer".utf8), "invalid_request", "Missing required parameter: assertion"),
    ])
    func refused(_ name: String, _ body: [UInt8], _ error: String, _ description: String) throws {
        let outcome = Self.handle(body)
        guard case .refused(let problem, _) = outcome else {
            Issue.record("\(name) was accepted")
            return
        }
        #expect(problem.error == error, "\(name)")
        #expect(problem.description == description, "\(name)")
        let (status, json) = outcome.response
        #expect(status == 400)
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String]
        #expect(object == ["error": error, "error_description": description])
    }

    @Test("service account key files are read as Google writes them, and refused clearly otherwise")
    func serviceAccountFile() throws {
        let json = """
            {"type":"service_account","project_id":"demo","private_key_id":"abc","private_key":\(String(reflecting: Self.key.pkcs8PEMRepresentation)),"client_email":"s@demo.iam.gserviceaccount.com","token_uri":"https://oauth2.googleapis.com/token"}
            """
        let account = try ServiceAccount.parse(json: Array(json.utf8))
        #expect(account.projectID == "demo")
        #expect(account.publicKey.derRepresentation == Self.key.publicKey.derRepresentation)
        #expect(throws: ServiceAccount.Problem.self) { try ServiceAccount.parse(json: Array(#"{"type":"authorized_user"}"#.utf8)) }
        #expect(throws: ServiceAccount.Problem.self) { try ServiceAccount.parse(json: Array("[]".utf8)) }
    }
}
