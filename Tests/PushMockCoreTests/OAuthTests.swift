import Foundation
import PushMockCore
import Testing
import _CryptoExtras

@Suite("Google's OAuth2 token endpoint (JWT bearer grant)")
struct OAuthTests {
    static let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let account = ServiceAccount(
        projectID: "demo", privateKeyID: "0123456789abcdef0123456789abcdef01234567", clientEmail: "sender@demo.iam.gserviceaccount.com",
        publicKey: key.publicKey)
    static let now: Int64 = 1_767_225_600
    static let endpoint = OAuthTokenEndpoint(accounts: [account], ownTokenPath: "/token")

    static func assertion(
        key: _RSA.Signing.PrivateKey = key, keyID: String = account.privateKeyID, issuer: String = account.clientEmail,
        audience: String = OAuthTokenEndpoint.googleAudience,
        scope: String? = "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/firebase.messaging",
        issuedAt: Int64 = now, lifetime: Int64 = 3600
    ) -> String {
        try! OAuthAssertion.sign(key: key, keyID: keyID, issuer: issuer, audience: audience, scope: scope, issuedAt: issuedAt, lifetime: lifetime)
    }

    static func form(_ assertion: String, grant: String = OAuthTokenEndpoint.jwtBearerGrant) -> [UInt8] {
        let encodedGrant = grant.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        return Array("grant_type=\(encodedGrant)&assertion=\(assertion)".utf8)
    }

    static func handle(_ body: [UInt8], store: AccessTokenStore = AccessTokenStore()) -> OAuthTokenEndpoint.Outcome {
        endpoint.handle(form: body, now: PushInstant(secondsSinceEpoch: now), store: store)
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

    @Test(
        "refusals use Google's error and error_description",
        arguments: [
            ("bad signature", form(assertion(key: try! _RSA.Signing.PrivateKey(keySize: .bits2048))), "invalid_grant", "Invalid JWT Signature."),
            ("wrong aud", form(assertion(audience: "https://example.com/token")), "invalid_grant", "Invalid JWT: Failed audience check."),
            (
                "expired", form(assertion(issuedAt: now - 7200)), "invalid_grant",
                "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
            ),
            (
                "exp > iat + 3600", form(assertion(lifetime: 3601)), "invalid_grant",
                "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
            ),
            ("wrong grant type", form(assertion(), grant: "client_credentials"), "unsupported_grant_type", "Invalid grant_type: client_credentials"),
            ("unknown kid", form(assertion(keyID: "ffffffffffffffffffffffffffffffffffffffff")), "invalid_grant", "Invalid JWT Signature."),
            ("unknown account", form(assertion(issuer: "nobody@demo.iam.gserviceaccount.com")), "invalid_grant", "Invalid grant: account not found"),
            ("no scope", form(assertion(scope: nil)), "invalid_scope", "Invalid OAuth scope or ID token audience provided."),
            ("not a JWT", form("garbage"), "invalid_grant", "Invalid JWT Signature."),
            (
                "no assertion", Array("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer".utf8), "invalid_request",
                "Missing required parameter: assertion"
            ),
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

    @Test("tokens are sealed: good wherever the secret is the same, refused when tampered with, revoked by a new generation")
    func sealedTokens() throws {
        let grant = AccessTokenStore.Grant(
            clientEmail: "a@demo.iam.gserviceaccount.com", projectID: "demo", scope: "https://www.googleapis.com/auth/firebase.messaging",
            expiresAt: Self.now + 3599)
        let a = AccessTokenStore(secret: Array("fleet".utf8))
        let token = a.issue(grant)
        #expect(token.hasPrefix("ya29.pm."))
        #expect(a.issue(grant) != token, "two tokens of one grant differ")
        #expect(AccessTokenStore(secret: Array("fleet".utf8)).grant(for: token) == grant, "another instance with the secret reads it")
        #expect(AccessTokenStore(secret: Array("other".utf8)).grant(for: token) == nil)
        #expect(AccessTokenStore().grant(for: token) == nil, "a random secret: this process's tokens only")
        var tampered = Array(token.utf8)
        let index = tampered.count - 3
        tampered[index] = tampered[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(AccessTokenStore(secret: Array("fleet".utf8)).grant(for: String(decoding: tampered, as: UTF8.self)) == nil)
        #expect(AccessTokenStore(secret: Array("fleet".utf8)).grant(for: "ya29.pm.") == nil)
        #expect(AccessTokenStore(secret: Array("fleet".utf8)).grant(for: "ya29.pm.AAAA.BBBB") == nil)

        let b = AccessTokenStore(secret: Array("fleet".utf8))
        #expect(a.removeAll() == 1)
        #expect(a.grant(for: token) == nil, "a reset revokes what was issued before")
        #expect(b.grant(for: token) == grant)
        b.adopt(generation: 1)
        #expect(b.grant(for: token) == nil, "the fleet's other instances take the new generation")
        let fresh = a.issue(grant)
        #expect(b.grant(for: fresh) == grant)
    }

    @Test("a configured account with known scopes gets a compact token: sealed alike, generation in its MAC, every scope spelled back")
    func compactTokens() throws {
        let scopes = [
            "https://www.googleapis.com/auth/firebase.messaging",
            "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/datastore https://www.googleapis.com/auth/devstorage.full_control https://www.googleapis.com/auth/firebase https://www.googleapis.com/auth/identitytoolkit https://www.googleapis.com/auth/userinfo.email",
        ]
        for scope in scopes {
            let grant = AccessTokenStore.Grant(clientEmail: Self.account.clientEmail, projectID: "demo", scope: scope, expiresAt: Self.now + 3599)
            let a = AccessTokenStore(secret: Array("fleet".utf8), accounts: [Self.account])
            let token = a.issue(grant)
            #expect(token.hasPrefix("ya29.pmc."), "\(token)")
            #expect(token.utf8.count <= 80, "compact: \(token.utf8.count) characters")
            #expect(a.issue(grant) != token, "two tokens of one grant differ")
            let b = AccessTokenStore(secret: Array("fleet".utf8), accounts: [Self.account])
            #expect(b.grant(for: token) == grant, "another instance with the secret and the account reads it, scopes and all")
            #expect(AccessTokenStore(secret: Array("fleet".utf8)).grant(for: token) == nil, "an instance without the account cannot name it")
            #expect(AccessTokenStore(secret: Array("other".utf8), accounts: [Self.account]).grant(for: token) == nil)
            // Every character of the grant and the MAC, its sextet's top bit flipped (a data bit even in a
            // part's last character).
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
            let bytes = Array(token.utf8)
            for index in bytes.indices.dropFirst("ya29.pmc.".count) where bytes[index] != UInt8(ascii: ".") {
                var tampered = bytes
                tampered[index] = alphabet[alphabet.firstIndex(of: bytes[index])! ^ 32]
                #expect(
                    AccessTokenStore(secret: Array("fleet".utf8), accounts: [Self.account]).grant(for: String(decoding: tampered, as: UTF8.self))
                        == nil, "byte \(index) changed")
            }
            #expect(a.removeAll() == 1)
            #expect(a.grant(for: token) == nil, "a reset revokes compact tokens too")
            b.adopt(generation: 1)
            #expect(b.grant(for: token) == nil)
            #expect(b.grant(for: a.issue(grant)) == grant, "the new generation's tokens are good on both")
        }
        let store = AccessTokenStore(accounts: [Self.account])
        // Not compact: another account, a scope outside the table, a scope list with two spaces.
        for grant in [
            AccessTokenStore.Grant(clientEmail: "other@demo.iam.gserviceaccount.com", projectID: "demo", scope: scopes[0], expiresAt: Self.now),
            AccessTokenStore.Grant(clientEmail: Self.account.clientEmail, projectID: "other", scope: scopes[0], expiresAt: Self.now),
            AccessTokenStore.Grant(
                clientEmail: Self.account.clientEmail, projectID: "demo", scope: "https://www.googleapis.com/auth/drive", expiresAt: Self.now),
            AccessTokenStore.Grant(
                clientEmail: Self.account.clientEmail, projectID: "demo", scope: scopes[0] + "  " + scopes[0], expiresAt: Self.now),
            AccessTokenStore.Grant(clientEmail: Self.account.clientEmail, projectID: "demo", scope: "", expiresAt: Self.now),
        ] {
            let token = store.issue(grant)
            #expect(token.hasPrefix("ya29.pm."), "the long spelling for \(grant)")
            #expect(AccessTokenStore(secret: nil, accounts: [Self.account]).grant(for: token) == nil)
            #expect(store.grant(for: token) == grant)
        }
        #expect(AccessTokenStore(accounts: [Self.account]).grant(for: "ya29.pmc.") == nil)
        #expect(AccessTokenStore(accounts: [Self.account]).grant(for: "ya29.pmc.AAAA.BBBB") == nil)
    }

    @Test("form fields and scopes are bounded in bytes: a 60 KB scope is refused at /token, whichever grant carries it")
    func scopesAreBounded() throws {
        let client = OAuthUserClient.sample
        func refresh(scope: String) -> [UInt8] {
            let encoded = scope.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            return Array(
                "grant_type=refresh_token&client_id=\(client.clientID)&client_secret=\(client.clientSecret!)&refresh_token=1//0gdemo\(String(repeating: "a", count: 60))&scope=\(encoded)"
                    .utf8)
        }
        let fits = String(repeating: "s", count: OAuthTokenEndpoint.maxScopeBytes)
        guard case .issuedToUser(_, _, let scope, _) = Self.handle(refresh(scope: fits)) else {
            Issue.record("a scope list of exactly \(OAuthTokenEndpoint.maxScopeBytes) bytes was refused")
            return
        }
        #expect(scope == fits)
        for (name, body) in [
            ("refresh, one byte over", refresh(scope: fits + "s")),
            ("assertion, one byte over", Self.form(Self.assertion(scope: fits + "s"))),
        ] {
            guard case .refused(let problem, _) = Self.handle(body) else {
                Issue.record("\(name): issued")
                continue
            }
            #expect(problem.error == "invalid_scope", "\(name)")
            #expect(problem.description.contains("at most \(OAuthTokenEndpoint.maxScopeBytes) bytes"), "\(name): \(problem.description)")
        }
        guard case .refused(let problem, _) = Self.handle(refresh(scope: String(repeating: "s", count: 60_000))) else {
            Issue.record("a 60 KB scope was issued")
            return
        }
        #expect(problem.error == "invalid_request")
        #expect(problem.description == "The scope parameter is 60000 bytes; PushMock reads at most \(OAuthTokenEndpoint.maxFieldBytes).")
    }

    @Test("the cache of verified tokens is bounded by bytes, the oldest dropped first; a dropped token is verified again")
    func tokenCacheIsBounded() throws {
        let budget = 64 * 1024
        let store = AccessTokenStore(secret: Array("fleet".utf8), cacheBudget: budget)
        let scope = String(repeating: "s", count: OAuthTokenEndpoint.maxScopeBytes)
        var tokens: [String] = []
        for index in 0..<200 {
            tokens.append(
                store.issue(.init(clientEmail: "a\(index)@demo.iam.gserviceaccount.com", projectID: "demo", scope: scope, expiresAt: Self.now)))
            #expect(store.cached.bytes <= budget, "after \(index + 1) tokens: \(store.cached.bytes) bytes cached")
        }
        #expect(store.cached.tokens > 1 && store.cached.tokens < 20, "\(store.cached.tokens) tokens cached")
        #expect(store.grant(for: tokens[0])?.clientEmail == "a0@demo.iam.gserviceaccount.com", "the oldest, dropped, is verified again")
        #expect(store.grant(for: tokens[199])?.clientEmail == "a199@demo.iam.gserviceaccount.com")
        #expect(store.cached.bytes <= budget)
        store.removeAll()
        #expect(store.cached.tokens == 0 && store.cached.bytes == 0)
    }

    @Test("a scope list without FCM's scopes still gets a token, as Google issues one (refused later, at messages:send)")
    func otherScopeIssued() {
        let store = AccessTokenStore()
        guard
            case .issued(let token, _, _, _) = Self.handle(
                Self.form(Self.assertion(scope: "https://www.googleapis.com/auth/userinfo.email")), store: store)
        else {
            Issue.record("a token with another scope was refused at /token")
            return
        }
        #expect(store.grant(for: token)?.scope == "https://www.googleapis.com/auth/userinfo.email")
        #expect(!OAuthTokenEndpoint.allowsSending(scope: "https://www.googleapis.com/auth/userinfo.email"))
        #expect(OAuthTokenEndpoint.allowsSending(scope: "openid https://www.googleapis.com/auth/cloud-platform"))
    }

    /// A compact JWT with `claims` as given and a signature that is not one (issue 10, defect 1).
    static func unsigned(claims: String, alg: String = "RS256") -> String {
        Base64URL.encode(Array(#"{"alg":"\#(alg)","typ":"JWT"}"#.utf8)) + "." + Base64URL.encode(Array(claims.utf8)) + ".c2lnbmF0dXJl"
    }

    @Test(
        "hostile numeric claims are refused, never trapped on (regression: iat 1e300 killed the process)",
        arguments: [
            #"{"iss":"a","iat":1e300,"exp":1}"#,
            #"{"iss":"sender@demo.iam.gserviceaccount.com","iat":1e300,"exp":1}"#,
            #"{"iss":"sender@demo.iam.gserviceaccount.com","iat":-1e400,"exp":1e400}"#,
            #"{"iss":"sender@demo.iam.gserviceaccount.com","iat":-9223372036854775808,"exp":9223372036854775807}"#,
            #"{"iss":"sender@demo.iam.gserviceaccount.com","iat":9.3e18,"exp":-9.3e18,"scope":"x"}"#,
        ])
    func hostileClaims(_ claims: String) {
        let outcome = Self.handle(Self.form(Self.unsigned(claims: claims)))
        guard case .refused(let problem, _) = outcome else {
            Issue.record("\(claims) was accepted")
            return
        }
        #expect(problem.error == "invalid_grant")
        #expect(["Invalid JWT Signature.", "Invalid grant: account not found"].contains(problem.description))
    }

    @Test("a correctly signed assertion with extreme iat/exp fails the timeframe check without overflowing")
    func extremeSignedClaims() throws {
        for (iat, exp) in [(Int64.min, Int64.max), (Int64.max - 1, Int64.max), (-1, Int64.max)] {
            var assertion = try OAuthAssertion.parse(Substring(Self.assertion()))
            assertion.issuedAt = iat
            assertion.expiresAt = exp
            #expect(
                throws: OAuthAssertion.Problem(
                    error: "invalid_grant",
                    description:
                        "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
                )
            ) { try assertion.checkTimeframe(now: PushInstant(secondsSinceEpoch: Self.now)) }
        }
        for text in ["1e300", "-1e400", "1e400", "NaN", "9223372036854775808"] {
            #expect(SafeNumber.int64(jsonNumber: text) == nil, "\(text)")
        }
        #expect(SafeNumber.int64(jsonNumber: "1.5e9") == 1_500_000_000)
        #expect(SafeNumber.milliseconds(seconds: .max) == .max)
        #expect(SafeNumber.milliseconds(seconds: .min) == .min)
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
