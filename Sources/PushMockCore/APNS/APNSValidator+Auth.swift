extension APNSValidator {
    /// Step 5: the provider token. Returns the rejection, or `nil` and updates `auth`.
    func authenticate(
        _ headers: inout APNSHeaders,
        environment: APNSEnvironment,
        auth: inout APNSConnectionAuth,
        now: Int64,
        verdict: inout APNSVerdict
    ) -> (APNSRejectionReason, String)? {
        // The connection's last accepted token again (almost every push): everything but its age
        // was checked when it was accepted, and a registry change or reset forgets it.
        if let authorization = headers.authorization, let accepted = auth.acceptedToken, accepted.generation == tokens.generation,
            accepted.environment == environment, accepted.authorization == authorization
        {
            let (age, overflow) = now.subtractingReportingOverflow(accepted.issuedAt)
            if !overflow, age <= options.tokenLifetimeSeconds, -age <= options.futureIssuedAtSeconds {
                verdict.identity = auth.identity
                verdict.authenticated = true
                return nil
            }
        }
        guard let authorization = headers.authorization, !Self.isBlankBearer(authorization) else {
            return (.missingProviderToken, "send authorization: bearer <provider token JWT>")
        }
        let generation = tokens.generation
        let token: ProviderToken
        let scope: APNSSigningKey.Scope
        switch verify(authorization, generation: generation, auth: &auth) {
        case .refused(let reason, let explanation): return (reason, explanation)
        case .token(let valid, let validScope):
            token = valid
            scope = validScope
        }
        if let cached = auth.identity, auth.keyID == token.keyID {
            verdict.identity = cached
        } else {
            verdict.identity = "\(token.teamID)/\(token.keyID)"
        }
        if let refusal = checkIssuedAt(token, now: now) { return refusal }
        guard scope.allows(environment) else {
            return (.badEnvironmentKeyInToken, "key \(token.keyID) is for \(scope.rawValue) only; this request went to \(environment.rawValue)")
        }
        if let refusal = bind(
            token, authorization: authorization, generation: generation, environment: environment, now: now, auth: &auth, verdict: &verdict)
        {
            return refusal
        }
        verdict.authenticated = true
        return nil
    }

    /// A provider token verified against the registered keys, or why not.
    private enum Verification {
        case token(ProviderToken, APNSSigningKey.Scope)
        case refused(APNSRejectionReason, String)
    }

    /// `authorization` as `bearer <JWT>`, verified: the connection's last verification again when
    /// it is the same header (a memcmp) before the shared cache (a hash and a lock).
    private func verify(_ authorization: String, generation: UInt64, auth: inout APNSConnectionAuth) -> Verification {
        let bytes = authorization.utf8
        guard bytes.count > 7, zip(bytes.prefix(7), "bearer ".utf8).allSatisfy({ $0 | 0x20 == $1 }) else {
            return .refused(.invalidProviderToken, "authorization must be \"bearer <JWT>\"")
        }
        let result: ProviderTokenVerifier.Result
        if let cached = auth.lastVerification, cached.generation == generation, cached.authorization == authorization {
            result = cached.result
        } else {
            let jwt = Substring(bytes.dropFirst(7)).drop { $0 == " " }
            result = tokens.verify(jwt)
            auth.lastVerification = .init(authorization: authorization, generation: generation, result: result)
        }
        switch result {
        case .invalid(let problem):
            return .refused(.invalidProviderToken, problem.rawValue)
        case .unknownKey(let keyID, let teamID):
            return .refused(.invalidProviderToken, "key \(keyID) is not registered; register it with --apns-key \(keyID):\(teamID):PATH.p8")
        case .teamMismatch(let keyID, let keyTeam, let tokenTeam):
            return .refused(.invalidProviderToken, "key \(keyID) belongs to team \(keyTeam), the token says iss \(tokenTeam)")
        case .valid(let valid, let scope, _):
            return .token(valid, scope)
        }
    }

    /// The token's `iat`: not older than a token lasts, not further ahead than the tolerance.
    private func checkIssuedAt(_ token: ProviderToken, now: Int64) -> (APNSRejectionReason, String)? {
        // Any signer of the (public) sample key can put any iat in a token: the age is computed
        // without trapping (an overflow means "absurdly far" in that direction).
        let (age, ageOverflow) = now.subtractingReportingOverflow(token.issuedAt)
        if (ageOverflow && token.issuedAt < 0) || (!ageOverflow && age > options.tokenLifetimeSeconds) {
            return (
                .expiredProviderToken,
                ageOverflow ? "iat \(token.issuedAt) is not a time" : "iat \(token.issuedAt) is \(age) s old; tokens last \(options.tokenLifetime) s"
            )
        }
        if (ageOverflow && token.issuedAt > 0) || (!ageOverflow && -age > options.futureIssuedAtSeconds) {
            return (.invalidProviderToken, ageOverflow ? "iat \(token.issuedAt) is not a time" : "iat \(token.issuedAt) is \(-age) s in the future")
        }
        return nil
    }

    /// The connection's binding: one team and one key per connection, a new token at most every
    /// refresh interval; a token that keeps to them is bound and accepted.
    private func bind(
        _ token: ProviderToken, authorization: String, generation: UInt64, environment: APNSEnvironment, now: Int64, auth: inout APNSConnectionAuth,
        verdict: inout APNSVerdict
    ) -> (APNSRejectionReason, String)? {
        if let boundTeam = auth.teamID, boundTeam != token.teamID {
            return (.invalidProviderToken, "this connection is bound to team \(boundTeam); open a new connection for team \(token.teamID)")
        }
        if let boundKey = auth.keyID, boundKey != token.keyID {
            return (.unrelatedKeyIDInToken, "this connection is bound to key \(boundKey); open a new connection for key \(token.keyID)")
        }
        let identity = APNSConnectionAuth.TokenIdentity(keyID: token.keyID, issuedAtMilliseconds: token.issuedAtMilliseconds)
        if let current = auth.tokenIdentity, current != identity, let changed = auth.tokenChangedAt,
            now - changed < options.tokenRefreshInterval.wholeSeconds
        {
            return (
                .tooManyProviderTokenUpdates,
                "a new token \(now - changed) s after the last one; refresh at most every \(options.tokenRefreshInterval.wholeSeconds / 60) minutes"
            )
        }
        if auth.tokenIdentity != identity {
            auth.tokenIdentity = identity
            auth.tokenChangedAt = now
        }
        if auth.keyID != token.keyID || auth.identity == nil {
            auth.teamID = token.teamID
            auth.keyID = token.keyID
            auth.identity = verdict.identity
        }
        auth.acceptedToken = .init(authorization: authorization, generation: generation, environment: environment, issuedAt: token.issuedAt)
        return nil
    }

    /// Step 6 for token connections: the bound team must own the bundle, and a topic-specific key
    /// must list it. Returns the explanation of a `TopicDisallowed`, or `nil`.
    func authorizeTopic(bundleID: String, auth: inout APNSConnectionAuth) -> String? {
        guard let teamID = auth.teamID, let keyID = auth.keyID else { return nil }
        let generation = tokens.generation
        if auth.lastAuthorizedBundle?.bundleID == bundleID, auth.lastAuthorizedBundle?.generation == generation {
            return nil
        }
        let registry = tokens.registry
        guard let owner = registry.team(ofBundle: bundleID) else {
            return "no team owns \(bundleID); register it with --apns-bundle \(bundleID):\(teamID)"
        }
        guard owner == teamID else {
            return "\(bundleID) belongs to team \(owner), not \(teamID)"
        }
        if let topics = registry.keys[keyID]?.topics, !topics.contains(bundleID) {
            return "key \(keyID) is limited to \(topics.joined(separator: ", "))"
        }
        auth.lastAuthorizedBundle = .init(bundleID: bundleID, generation: generation)
        return nil
    }

    /// `""`, `"bearer"`, `"bearer "` and the like: an authorization header that carries no token
    /// (APNs answers MissingProviderToken at the application level, not a stream reset).
    static func isBlankBearer(_ value: String) -> Bool {
        // The hot path: a real header is far longer than "bearer" plus whitespace; no allocation.
        var word: UInt64 = 0
        var letters = 0
        for byte in value.utf8 where byte != 0x20 && byte != 0x09 {
            letters += 1
            if letters > 6 { return false }
            word = word << 8 | UInt64(byte | 0x20)
        }
        return letters == 0 || (letters == 6 && word == 0x62_65_61_72_65_72)  // "bearer"
    }
}
