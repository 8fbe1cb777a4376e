/// Google's OAuth2 token endpoint for the JWT-bearer grant (fcm.md §8), as pure logic:
/// form body in, `{"access_token","expires_in","token_type"}` or `{"error","error_description"}` out.
public struct OAuthTokenEndpoint: Sendable {
    /// The grant type service accounts use.
    public static let jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// The audience google-auth always sends.
    public static let googleAudience = "https://oauth2.googleapis.com/token"
    /// Scopes that allow sending (either one).
    public static let sendScopes = ["https://www.googleapis.com/auth/firebase.messaging", "https://www.googleapis.com/auth/cloud-platform"]

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

    public init(accounts: [ServiceAccount], extraAudiences: [String] = [], tokenLifetime: Duration = .seconds(3599), ownTokenPath: String? = nil) {
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
        case refused(OAuthAssertion.Problem, account: String?)

        /// The JSON body and status Google answers with.
        public var response: (status: Int, json: String) {
            switch self {
            case .issued(let token, let expiresIn, _, _):
                return (200, "{\n  \"access_token\": \"\(token)\",\n  \"expires_in\": \(expiresIn),\n  \"token_type\": \"Bearer\"\n}")
            case .refused(let problem, _):
                return (400, "{\n  \"error\": \"\(problem.error)\",\n  \"error_description\": \"\(JSONText.escape(problem.description))\"\n}")
            }
        }
    }

    /// Handles a form-encoded body at `instant`.
    public func handle(form body: [UInt8], now instant: PushInstant, store: AccessTokenStore) -> Outcome {
        let now = instant.secondsSinceEpoch
        let form = Self.parseForm(body)
        guard let grantType = form["grant_type"] else {
            return .refused(.init(error: "invalid_request", description: "Missing required parameter: grant_type"), account: nil)
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
            let token = store.issue(.init(clientEmail: account.clientEmail, projectID: account.projectID, scope: assertion.scope ?? "", expiresAt: now &+ tokenLifetime.wholeSeconds))
            return .issued(token: token, expiresIn: tokenLifetime.wholeSeconds, account: account.clientEmail, project: account.projectID)
        } catch {
            return .refused(error, account: nil)
        }
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
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex,
                let high = JSONScanner.hexValue(bytes[index + 1]), let low = JSONScanner.hexValue(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 2
            } else {
                out.append(byte)
            }
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
