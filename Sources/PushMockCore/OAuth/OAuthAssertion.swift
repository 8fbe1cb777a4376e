public import _CryptoExtras

/// A JWT a service account signed with RS256: the `assertion` of the token endpoint's JWT-bearer
/// grant, or a self-signed bearer on `messages:send` (fcm.md §8).
public struct OAuthAssertion: Sendable, Hashable {
    public var keyID: String?
    public var issuer: String
    public var subject: String?
    public var audience: String?
    public var scope: String?
    /// `iat` in seconds, or nil when absent or not a number PushMock can hold (then the timeframe
    /// check fails). Read without trapping: the claims are not trusted until ``verify(with:)``.
    public var issuedAt: Int64?
    /// `exp` in seconds; nil as for ``issuedAt``.
    public var expiresAt: Int64?
    var signingInput: Substring
    var signature: [UInt8]

    /// An `invalid_grant`-style problem, with Google's `error` and `error_description`.
    public struct Problem: Error, Sendable, Hashable {
        public var error: String
        public var description: String

        public init(error: String, description: String) {
            self.error = error
            self.description = description
        }

        static func grant(_ description: String) -> Problem { Problem(error: "invalid_grant", description: description) }
        static let signature = grant("Invalid JWT Signature.")
        static let timeframe = grant(
            "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
        )
        static let audience = grant("Invalid JWT: Failed audience check.")
        static let account = grant("Invalid grant: account not found")
        static let email = grant("Invalid email or User ID")
        static let scope = Problem(error: "invalid_scope", description: "Invalid OAuth scope or ID token audience provided.")
    }

    /// Parses the compact JWT (signature not yet checked). Numeric claims are read with
    /// ``SafeNumber``, never with a trapping conversion: nothing here may fail on hostile input.
    public static func parse(_ jwt: Substring) throws(Problem) -> OAuthAssertion {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Base64URL.decode(parts[0]), let claims = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]),
            let headerJSON = JSONValue.parse(header), let claimsJSON = JSONValue.parse(claims)
        else { throw .signature }
        guard case .string("RS256")? = headerJSON["alg"] else { throw .signature }
        func string(_ key: String) -> String? {
            if case .string(let value)? = claimsJSON[key] { return value }
            return nil
        }
        func integer(_ key: String) -> Int64? {
            switch claimsJSON[key] {
            case .number(let text)?: return SafeNumber.int64(jsonNumber: text)
            case .string(let text)?: return Int64(text)
            default: return nil
            }
        }
        guard let issuer = string("iss") else { throw .email }
        var keyID: String?
        if case .string(let kid)? = headerJSON["kid"] { keyID = kid }
        return OAuthAssertion(
            keyID: keyID, issuer: issuer, subject: string("sub"), audience: string("aud"), scope: string("scope"),
            issuedAt: integer("iat"), expiresAt: integer("exp"),
            signingInput: jwt[jwt.startIndex..<parts[2].startIndex].dropLast(), signature: signature
        )
    }

    /// Verifies the RS256 signature with `key`.
    public func verify(with key: _RSA.Signing.PublicKey) throws(Problem) {
        let rsa = _RSA.Signing.RSASignature(rawRepresentation: signature)
        guard key.isValidSignature(rsa, for: Array(signingInput.utf8), padding: .insecurePKCS1v1_5) else {
            throw .signature
        }
    }

    /// The lifetime and clock rules: `exp - iat` at most 3600 s, `iat` not in the future and `exp`
    /// not past (with `skew` seconds of tolerance). Call it after ``verify(with:)``; no claim
    /// value can make it trap (the arithmetic reports overflow instead).
    public func checkTimeframe(now instant: PushInstant, skew: Duration = .seconds(300)) throws(Problem) {
        // JWT claims are in seconds.
        let now = instant.secondsSinceEpoch
        let skew = skew.wholeSeconds
        guard let issuedAt, let expiresAt, expiresAt > issuedAt else { throw .timeframe }
        let (lifetime, overflow) = expiresAt.subtractingReportingOverflow(issuedAt)
        guard !overflow, lifetime <= 3600, issuedAt <= now &+ skew, expiresAt >= now &- skew else {
            throw .timeframe
        }
    }

    /// Signs an assertion (the test library and `pushmock token fcm` use it).
    public static func sign(
        key: _RSA.Signing.PrivateKey, keyID: String, issuer: String, audience: String, scope: String?, issuedAt: Int64, lifetime: Int64 = 3600
    ) throws -> String {
        let header = #"{"alg":"RS256","typ":"JWT","kid":"\#(JSONText.escape(keyID))"}"#
        var claims = #"{"iss":"\#(JSONText.escape(issuer))","aud":"\#(JSONText.escape(audience))","iat":\#(issuedAt),"exp":\#(issuedAt + lifetime)"#
        if let scope { claims += #","scope":"\#(JSONText.escape(scope))""# }
        claims += "}"
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        let signature = try key.signature(for: Array(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }
}
