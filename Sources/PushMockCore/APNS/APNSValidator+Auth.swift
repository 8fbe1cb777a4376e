extension APNSValidator {
    /// Step 5: the provider token. Returns the rejection, or `nil` and updates `auth`.
    func authenticate(
        _ headers: inout APNSHeaders,
        environment: APNSEnvironment,
        auth: inout APNSConnectionAuth,
        now: Int64,
        verdict: inout APNSVerdict
    ) -> (APNSRejectionReason, String)? {
        guard let authorization = headers.authorization, !authorization.isEmpty else {
            return (.missingProviderToken, "send authorization: bearer <provider token JWT>")
        }
        guard authorization.count > 7, authorization.prefix(7).lowercased() == "bearer " else {
            return (.invalidProviderToken, "authorization must be \"bearer <JWT>\"")
        }
        let jwt = authorization.dropFirst(7).drop { $0 == " " }
        let token: ProviderToken
        let scope: APNSSigningKey.Scope
        let keyTopics: [String]?
        switch tokens.verify(jwt) {
        case .invalid(let problem):
            return (.invalidProviderToken, problem.rawValue)
        case .unknownKey(let keyID, let teamID):
            return (.invalidProviderToken, "key \(keyID) is not registered; register it with --apns-key \(keyID):\(teamID):PATH.p8")
        case .teamMismatch(let keyID, let keyTeam, let tokenTeam):
            return (.invalidProviderToken, "key \(keyID) belongs to team \(keyTeam), the token says iss \(tokenTeam)")
        case .valid(let valid, let validScope, let topics):
            token = valid
            scope = validScope
            keyTopics = topics
        }
        verdict.identity = "\(token.teamID)/\(token.keyID)"
        if now - token.issuedAt > options.tokenLifetime {
            return (.expiredProviderToken, "iat \(token.issuedAt) is \(now - token.issuedAt) s old; tokens last \(options.tokenLifetime) s")
        }
        if token.issuedAt - now > options.futureIssuedAtTolerance {
            return (.invalidProviderToken, "iat \(token.issuedAt) is \(token.issuedAt - now) s in the future")
        }
        guard scope.allows(environment) else {
            return (.badEnvironmentKeyInToken, "key \(token.keyID) is for \(scope.rawValue) only; this request went to \(environment.rawValue)")
        }
        if let boundTeam = auth.teamID, boundTeam != token.teamID {
            return (.invalidProviderToken, "this connection is bound to team \(boundTeam); open a new connection for team \(token.teamID)")
        }
        if let boundKey = auth.keyID, boundKey != token.keyID {
            return (.unrelatedKeyIDInToken, "this connection is bound to key \(boundKey); open a new connection for key \(token.keyID)")
        }
        let identity = APNSConnectionAuth.TokenIdentity(keyID: token.keyID, issuedAt: token.issuedAt)
        if let current = auth.tokenIdentity, current != identity, let changed = auth.tokenChangedAt, now - changed < options.tokenRefreshInterval {
            return (.tooManyProviderTokenUpdates, "a new token \(now - changed) s after the last one; refresh at most every \(options.tokenRefreshInterval / 60) minutes")
        }
        if auth.tokenIdentity != identity {
            auth.tokenIdentity = identity
            auth.tokenChangedAt = now
        }
        auth.teamID = token.teamID
        auth.keyID = token.keyID
        verdict.authenticated = true
        _ = keyTopics
        return nil
    }

    /// Step 6 for token connections: the bound team must own the bundle, and a topic-specific key
    /// must list it. Returns the explanation of a `TopicDisallowed`, or `nil`.
    func authorizeTopic(bundleID: String, auth: APNSConnectionAuth) -> String? {
        guard let teamID = auth.teamID, let keyID = auth.keyID else { return nil }
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
        return nil
    }
}
