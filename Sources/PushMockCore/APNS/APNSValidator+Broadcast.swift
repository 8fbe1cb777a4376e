/// What broadcast and channel-management requests share: the `apns-request-id` to echo, who sent
/// it, and the first rejection.
public struct BroadcastVerdict: Sendable {
    /// The `apns-request-id` to answer with: the client's, or a new one.
    public var requestID: String
    /// `TEAMID/KEYID` or the certificate subject.
    public var identity: String?
    /// The provider token was valid (raise the stream limit).
    public var authenticated = false
    /// `nil` when accepted.
    public var rejection: APNSRejectionReason?
    /// Why, for people.
    public var explanation: String?
}

extension APNSValidator {
    /// The checks every `/1/apps/<bundle>/…` and `/4/broadcasts/apps/<bundle>` request goes
    /// through (apns.md §10): certificate trust and environment, `apns-request-id` syntax, the
    /// provider token, and that the token's team (or the certificate) covers the app
    /// (`TopicMismatch`); a bundle id with a `.push-type.` suffix is `TopicDisallowed`.
    public func authorizeBroadcast(
        headers fields: [HeaderField], bundleID: String, environment: APNSEnvironment,
        credential: APNSConnectionCredential, auth: inout APNSConnectionAuth, now instant: PushInstant, ids: inout IDGenerator
    ) -> BroadcastVerdict {
        let now = instant.secondsSinceEpoch
        let requestID = fields.first { $0.name == "apns-request-id" }?.value
        var verdict = BroadcastVerdict(requestID: requestID.flatMap { APNSHeaders.isUUID($0) ? $0 : nil } ?? ids.nextUUIDString(lowercase: true))
        func reject(_ reason: APNSRejectionReason, _ explanation: String) -> BroadcastVerdict {
            verdict.rejection = reason
            verdict.explanation = explanation
            return verdict
        }
        switch credential {
        case .untrustedCertificate(let subject, let problem):
            return reject(.badCertificate, "client certificate \(subject) is not trusted: \(problem)")
        case .certificate(let identity):
            verdict.identity = identity.subject
            if !identity.environments.isEmpty, !identity.environments.contains(environment) {
                return reject(
                    .badCertificateEnvironment,
                    "the certificate is for \(identity.environments.map(\.rawValue).sorted().joined(separator: ", ")), the request went to \(environment.rawValue)"
                )
            }
        case .token:
            break
        }
        if let requestID, !APNSHeaders.isUUID(requestID) {
            return reject(.badMessageID, "apns-request-id must be a UUID (8-4-4-4-12 hex)")
        }
        if bundleID.contains(".push-type.") || bundleID.isEmpty {
            return reject(.topicDisallowed, "use the bare bundle id in the path, without a .push-type. suffix")
        }
        switch credential {
        case .certificate(let identity):
            guard identity.bundleID == bundleID || identity.topics.contains(bundleID) else {
                return reject(.topicMismatch, "the certificate is for \(identity.bundleID), not \(bundleID)")
            }
        case .token, .untrustedCertificate:
            var headers = APNSHeaders(fields)
            var apnsVerdict = APNSVerdict(apnsID: verdict.requestID)
            if let (reason, explanation) = authenticate(&headers, environment: environment, auth: &auth, now: now, verdict: &apnsVerdict) {
                verdict.identity = apnsVerdict.identity
                return reject(reason, explanation)
            }
            verdict.identity = apnsVerdict.identity
            verdict.authenticated = apnsVerdict.authenticated
            if let problem = authorizeTopic(bundleID: bundleID, auth: &auth) {
                return reject(.topicMismatch, problem)
            }
        }
        return verdict
    }
}
