/// Google's OAuth2 token endpoint for service accounts (the JWT-bearer grant) and user credentials
/// (the refresh-token grant of an `authorized_user` file), as pure logic: form body in,
/// `{"access_token","expires_in","token_type"}` or `{"error","error_description"}` out.
public struct OAuthTokenEndpoint: Sendable {
    /// The grant type service accounts use.
    public static let jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// The audience google-auth always sends.
    public static let googleAudience = "https://oauth2.googleapis.com/token"
    /// Scopes that allow sending (either one).
    public static let sendScopes = ["https://www.googleapis.com/auth/firebase.messaging", "https://www.googleapis.com/auth/cloud-platform"]

    /// The longest value of a form field PushMock reads, in bytes. Google publishes no limit; a
    /// service account's assertion is about 1 KB, a refresh token about 100 bytes.
    public static let maxFieldBytes = 8192
    /// The longest scope list a token is issued for, in bytes (Google publishes no limit; the scopes
    /// a sender asks for are a few hundred bytes). Tokens and the cache of verified ones stay small.
    public static let maxScopeBytes = 4096

    /// Whether a space-separated scope list holds a sending scope.
    public static func allowsSending(scope: String) -> Bool {
        scope.split(separator: " ").contains { sendScopes.contains(String($0)) }
    }

    /// Registered service accounts.
    public var accounts: [ServiceAccount]
    /// Audiences accepted besides Google's (the mock's own token URLs).
    public var extraAudiences: [String]
    /// Lifetime of issued tokens (`expires_in`; Google: 3599).
    public var tokenLifetime: Duration
    /// The mock's own token path: `https://localhost[:port]<path>` (and 127.0.0.1, [::1]) is
    /// accepted as an audience too, whatever port the server got.
    public var ownTokenPath: String?

    /// Clients whose refresh tokens are exchanged.
    public var userClients: [OAuthUserClient]
    /// The live refresh tokens; nil: any real-shaped one.
    public var refreshTokens: Set<String>?
    /// The scope a refresh without a `scope` parameter gets (what `gcloud auth application-default
    /// login` asks for).
    public static let userDefaultScope = "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/userinfo.email openid"

    public init(
        accounts: [ServiceAccount], extraAudiences: [String] = [], tokenLifetime: Duration = .seconds(3599), ownTokenPath: String? = nil,
        userClients: [OAuthUserClient] = OAuthUserClient.defaults, refreshTokens: [String]? = nil
    ) {
        self.userClients = userClients
        self.refreshTokens = refreshTokens.map(Set.init)
        self.accounts = accounts
        self.extraAudiences = extraAudiences
        self.tokenLifetime = tokenLifetime
        self.ownTokenPath = ownTokenPath
    }

    /// Whether `audience` is one this endpoint answers for.
    public func accepts(audience: String) -> Bool {
        if audience == Self.googleAudience || extraAudiences.contains(audience) { return true }
        guard let path = ownTokenPath else { return false }
        for host in ["https://localhost", "https://127.0.0.1", "https://[::1]"] where audience.hasPrefix(host) {
            var rest = audience.dropFirst(host.count)
            if rest.hasPrefix(":") {
                rest = rest.dropFirst().drop { $0.isNumber }
            }
            return rest == path
        }
        return false
    }

    /// The outcome of a token request.
    public enum Outcome: Sendable, Hashable {
        case issued(token: String, expiresIn: Int64, account: String, project: String)
        /// A refresh-token exchange: the token, its scope and the client.
        case issuedToUser(token: String, expiresIn: Int64, scope: String, client: String)
        case refused(OAuthAssertion.Problem, account: String?)

        /// The JSON body and status Google answers with (`invalid_client` is a 401, as Google answers it).
        public var response: (status: Int, json: String) {
            switch self {
            case .issued(let token, let expiresIn, _, _):
                return (200, "{\n  \"access_token\": \"\(token)\",\n  \"expires_in\": \(expiresIn),\n  \"token_type\": \"Bearer\"\n}")
            case .issuedToUser(let token, let expiresIn, let scope, _):
                return (
                    200,
                    "{\n  \"access_token\": \"\(token)\",\n  \"expires_in\": \(expiresIn),\n  \"scope\": \"\(JSONText.escape(scope))\",\n  \"token_type\": \"Bearer\"\n}"
                )
            case .refused(let problem, _):
                return (
                    problem.error == "invalid_client" ? 401 : 400,
                    "{\n  \"error\": \"\(problem.error)\",\n  \"error_description\": \"\(JSONText.escape(problem.description))\"\n}"
                )
            }
        }
    }

    /// Handles a form-encoded body at `instant`.
    public func handle(form body: [UInt8], now instant: PushInstant, store: AccessTokenStore) -> Outcome {
        let now = instant.secondsSinceEpoch
        let form = Self.parseForm(body)
        if let (name, value) = form.first(where: { $0.value.utf8.count > Self.maxFieldBytes }) {
            return .refused(
                .init(
                    error: "invalid_request",
                    description: "The \(name.prefix(64)) parameter is \(value.utf8.count) bytes; PushMock reads at most \(Self.maxFieldBytes)."),
                account: nil)
        }
        guard let grantType = form["grant_type"] else {
            return .refused(.init(error: "invalid_request", description: "Missing required parameter: grant_type"), account: nil)
        }
        if grantType == "refresh_token" {
            return refresh(form, now: now, store: store)
        }
        guard grantType == Self.jwtBearerGrant else {
            return .refused(.init(error: "unsupported_grant_type", description: "Invalid grant_type: \(grantType)"), account: nil)
        }
        guard let jwt = form["assertion"], !jwt.isEmpty else {
            return .refused(.init(error: "invalid_request", description: "Missing required parameter: assertion"), account: nil)
        }
        do throws(OAuthAssertion.Problem) {
            let assertion = try OAuthAssertion.parse(Substring(jwt))
            guard let account = accounts.first(where: { $0.clientEmail == assertion.issuer }) else {
                throw .account
            }
            if let kid = assertion.keyID, kid != account.privateKeyID {
                throw .signature
            }
            try assertion.verify(with: account.publicKey)
            try assertion.checkTimeframe(now: instant)
            guard let audience = assertion.audience, accepts(audience: audience) else {
                throw .audience
            }
            // Google issues a token for any non-empty scope list; a token without a sending scope
            // is refused where it is used (`messages:send`: 403 ACCESS_TOKEN_SCOPE_INSUFFICIENT).
            guard !(assertion.scope ?? "").split(separator: " ").isEmpty else {
                throw .scope
            }
            if let problem = Self.scopeTooLong(assertion.scope ?? "") { throw problem }
            let token = store.issue(
                .init(
                    clientEmail: account.clientEmail, projectID: account.projectID, scope: assertion.scope ?? "",
                    expiresAt: now &+ tokenLifetime.wholeSeconds))
            return .issued(token: token, expiresIn: tokenLifetime.wholeSeconds, account: account.clientEmail, project: account.projectID)
        } catch {
            return .refused(error, account: nil)
        }
    }

    /// The refresh-token grant (RFC 6749 §6) of a user's `authorized_user` credentials: the client
    /// must be known (and its secret match, when it has one), the refresh token live.
    func refresh(_ form: [String: String], now: Int64, store: AccessTokenStore) -> Outcome {
        guard let clientID = form["client_id"], !clientID.isEmpty else {
            return .refused(.init(error: "invalid_request", description: "Could not determine client ID from request."), account: nil)
        }
        guard let refreshToken = form["refresh_token"], !refreshToken.isEmpty else {
            return .refused(.init(error: "invalid_request", description: "Missing required parameter: refresh_token"), account: nil)
        }
        guard let client = userClients.first(where: { $0.clientID == clientID }) else {
            return .refused(.init(error: "invalid_client", description: "The OAuth client was not found."), account: nil)
        }
        if let secret = client.clientSecret, form["client_secret"] != secret {
            return .refused(.init(error: "invalid_client", description: "Unauthorized"), account: nil)
        }
        let live = refreshTokens.map { $0.contains(refreshToken) } ?? OAuthUserClient.isRefreshTokenShaped(refreshToken)
        guard live else {
            return .refused(.init(error: "invalid_grant", description: "Token has been expired or revoked."), account: nil)
        }
        let scope = form["scope"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.userDefaultScope
        if let problem = Self.scopeTooLong(scope) { return .refused(problem, account: nil) }
        let token = store.issue(
            .init(
                clientEmail: AccessTokenStore.Grant.userPrefix + clientID, projectID: "", scope: scope, expiresAt: now &+ tokenLifetime.wholeSeconds))
        return .issuedToUser(token: token, expiresIn: tokenLifetime.wholeSeconds, scope: scope, client: clientID)
    }

    /// Google's refusal of a scope list, when `scope` is longer than `maxScopeBytes`.
    public static func scopeTooLong(_ scope: String) -> OAuthAssertion.Problem? {
        let bytes = scope.utf8.count
        guard bytes > maxScopeBytes else { return nil }
        return .init(
            error: "invalid_scope",
            description:
                "Invalid OAuth scope or ID token audience provided. PushMock issues tokens for at most \(maxScopeBytes) bytes of scopes; these are \(bytes)."
        )
    }

    /// `application/x-www-form-urlencoded` pairs; the last repeated key wins.
    public static func parseForm(_ body: [UInt8]) -> [String: String] {
        var result: [String: String] = [:]
        for pair in body.split(separator: UInt8(ascii: "&")) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let key = decode(parts[0])
            result[key] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return result
    }

    static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        PercentDecoding.decode(bytes, plusAsSpace: true)
    }
}
