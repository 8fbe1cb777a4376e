import PushMockBytes

/// Judges one `/3/device/<token>` request like APNs does, in a documented order (reference §8):
///
/// 1. connection: untrusted client certificate, certificate environment vs host;
/// 2. `:method` (405), `:path` (404 `BadPath`, `MissingDeviceToken`);
/// 3. repeated APNs headers (`DuplicateHeaders`);
/// 4. header syntax: `apns-id`, `apns-expiration`, `apns-priority`, `apns-push-type`,
///    `apns-collapse-id`, topic present, priority allowed for the push type;
/// 5. authentication: provider token (missing, invalid, expired, environment, binding, churn);
/// 6. topic: push type vs topic suffix (`BadTopic`), ownership (`TopicDisallowed`);
/// 7. body: `PayloadEmpty`, `PayloadTooLarge`, not a JSON object (`BadPayload`);
/// 8. device token: syntax and environment (`BadDeviceToken`), app (`DeviceTokenNotForTopic`),
///    state (`Unregistered`, `ExpiredToken`);
/// 9. Live Activity payload rules (`strict`: 400 with the rule's reason; `apple`: 200, dropped),
///    then the declared activity type (`content-state` and `attributes` decoded as the device does).
///
/// Pure apart from the token cache: time and ids come in as arguments.
public struct APNSValidator: Sendable {
    /// The undocumented choices and limits.
    public var options: APNSValidationOptions
    /// Token verification (cached) and the credential registry.
    public let tokens: ProviderTokenVerifier
    /// Known device tokens.
    public let devices: DeviceRegistry
    /// Declared `ActivityAttributes` types.
    public let activityTypes: ActivityTypeRegistry

    /// Creates a validator.
    public init(
        options: APNSValidationOptions = .init(), tokens: ProviderTokenVerifier, devices: DeviceRegistry,
        activityTypes: ActivityTypeRegistry = ActivityTypeRegistry()
    ) {
        self.options = options
        self.tokens = tokens
        self.devices = devices
        self.activityTypes = activityTypes
    }

    /// Judges `request` sent on a connection with `credential` and binding `auth` (updated when
    /// the token is accepted), at `instant`.
    public func validate(
        _ request: APNSRequest,
        credential: APNSConnectionCredential,
        auth: inout APNSConnectionAuth,
        now instant: PushInstant,
        ids: inout IDGenerator
    ) -> APNSVerdict {
        var verdict = APNSVerdict()
        validate(request, credential: credential, auth: &auth, now: instant, ids: &ids, into: &verdict)
        return verdict
    }

    /// The same, into the caller's `verdict`, an empty one (`APNSVerdict()`): what the push path
    /// uses. A verdict built here and returned would be copied out and destroyed, one retain and
    /// one release per field; one built here and assigned over the caller's, ~280 instructions.
    public func validate(
        _ request: APNSRequest,
        credential: APNSConnectionCredential,
        auth: inout APNSConnectionAuth,
        now instant: PushInstant,
        ids: inout IDGenerator,
        into verdict: inout APNSVerdict
    ) {
        validate(
            method: request.method, path: request.path, headers: request.headers, body: request.body, bodyTruncated: request.bodyTruncated,
            environment: request.environment, credential: credential, auth: &auth, now: instant, ids: &ids, into: &verdict)
    }

    /// The same, on the request's parts as the transport holds them: the push path's, which
    /// borrows them where an ``APNSRequest`` made of them retained (and later released) each.
    public func validate(
        method: String, path: String, headers headerFields: [HeaderField], body: [UInt8], bodyTruncated: Bool, environment: APNSEnvironment,
        credential: APNSConnectionCredential,
        auth: inout APNSConnectionAuth,
        now instant: PushInstant,
        ids: inout IDGenerator,
        into verdict: inout APNSVerdict
    ) {
        // APNs reasons in seconds: JWT `iat`, `aps.timestamp`.
        var headers = APNSHeaders(headerFields)
        verdict.apnsID = headers.apnsID.flatMap { APNSHeaders.isUUID($0) ? $0 : nil } ?? ids.nextUUIDString()
        // The stages in APNs' order: the first refusal is the answer. (Plain `if`s, not a `??`
        // chain: stages called from autoclosures were not inlined, ~350 instructions a push.)
        let devicePath = Self.read(devicePath: path, auth: &auth)
        let shape = devicePath.shape
        var payload: JSONValue?
        var refusal = checkConnection(credential, environment: environment, verdict: &verdict)
        if refusal == nil { refusal = checkRequestLine(method: method, devicePath: devicePath, verdict: &verdict) }
        if refusal == nil { refusal = checkHeaders(headers, credential: credential, auth: &auth, verdict: &verdict) }
        if refusal == nil {
            refusal = checkCredential(credential, headers: &headers, environment: environment, auth: &auth, now: instant, verdict: &verdict)
        }
        if refusal == nil { refusal = checkTopic(credential: credential, auth: &auth, verdict: &verdict) }
        if refusal == nil { refusal = checkBody(body, truncated: bodyTruncated, payload: &payload, verdict: &verdict) }
        if refusal == nil { refusal = checkDeviceToken(shape: shape, environment: environment, verdict: &verdict) }
        if refusal == nil { refusal = checkLiveActivity(payload, headers: headers, now: instant, verdict: &verdict) }
        if let refusal {
            verdict.rejection = refusal.reason
            verdict.explanation = refusal.explanation
        }
    }

    /// Why a stage refuses a push: APNs' reason, and an explanation for people.
    typealias Refusal = (reason: APNSRejectionReason, explanation: String?)

    /// 1. The connection: its client certificate trusted, and for the request's environment.
    @inline(__always)
    private func checkConnection(_ credential: APNSConnectionCredential, environment: APNSEnvironment, verdict: inout APNSVerdict) -> Refusal? {
        if case .untrustedCertificate(let subject, let problem) = credential {
            return (.badCertificate, "client certificate \(subject) is not trusted: \(problem)")
        }
        if case .certificate(let identity) = credential {
            verdict.identity = identity.subject
            if !identity.environments.isEmpty, !identity.environments.contains(environment) {
                return (
                    .badCertificateEnvironment,
                    "the certificate is for \(identity.environments.map(\.rawValue).sorted().joined(separator: ", ")), the request went to \(environment.rawValue)"
                )
            }
        }
        return nil
    }

    /// 2. Method and path.
    @inline(__always)
    private func checkRequestLine(method: String, devicePath: APNSConnectionAuth.ReadDevicePath, verdict: inout APNSVerdict) -> Refusal? {
        guard method == "POST" else { return (.methodNotAllowed, nil) }
        switch devicePath.shape {
        case .badPath: return (.badPath, nil)
        case .missingToken: return (.missingDeviceToken, nil)
        case .token: break
        }
        verdict.deviceToken = devicePath.token
        return nil
    }

    /// 3. Duplicates, and 4. each header's syntax: id, expiration, priority, push type, collapse
    /// id, and the topic (or the certificate's), with the priorities its push type allows.
    @inline(__always)
    private func checkHeaders(
        _ headers: APNSHeaders, credential: APNSConnectionCredential, auth: inout APNSConnectionAuth, verdict: inout APNSVerdict
    ) -> Refusal? {
        if let duplicate = headers.duplicate {
            return (.duplicateHeaders, "\(duplicate) appears more than once")
        }
        if headers.apnsID != nil, verdict.apnsID != headers.apnsID {
            return (.badMessageID, "apns-id must be a UUID (8-4-4-4-12 hex digits)")
        }
        // The connection's last values again (its credential and the options are the same).
        if let last = auth.lastHeaderReading, last.reads(headers) {
            if let expiration = last.expirationValue { verdict.expiration = expiration }
            verdict.priority = last.priorityValue
            if let collapseID = headers.collapseID { verdict.collapseID = collapseID }
            verdict.topic = last.topicText
            verdict.pushType = last.resolvedType
            return nil
        }
        if let refusal = readHeaders(headers, credential: credential, verdict: &verdict) { return refusal }
        auth.lastHeaderReading = APNSConnectionAuth.HeaderReading(
            headers, expirationValue: verdict.expiration, priorityValue: verdict.priority ?? 10, resolvedType: verdict.pushType ?? .alert,
            topicText: verdict.topic ?? "")
        auth.lastHeaderBundleID = nil
        return nil
    }

    /// Stage 4 on header values not read before: each one's syntax, into `verdict`.
    private func readHeaders(_ headers: APNSHeaders, credential: APNSConnectionCredential, verdict: inout APNSVerdict) -> Refusal? {
        if let expiration = headers.expiration {
            guard let value = Int64(expiration), value >= 0 else {
                return (.badExpirationDate, "apns-expiration must be an integer number of seconds")
            }
            verdict.expiration = value
        }
        let priority: Int
        if let text = headers.priority {
            guard let value = Int(text), [1, 5, 10].contains(value) else { return (.badPriority, "apns-priority must be 10, 5 or 1") }
            priority = value
        } else {
            priority = 10
        }
        verdict.priority = priority
        var pushType: APNSPushType?
        if let text = headers.pushType {
            guard let known = APNSPushType(wire: text) else {
                return (.invalidPushType, "apns-push-type must be one of \(APNSPushType.all.map(\.rawValue).joined(separator: ", "))")
            }
            pushType = known
        }
        if let collapseID = headers.collapseID {
            guard collapseID.utf8.count <= 64 else {
                return (.badCollapseID, "apns-collapse-id is \(collapseID.utf8.count) bytes; the limit is 64")
            }
            verdict.collapseID = collapseID
        }
        let topicText: String
        if let given = headers.topic, !given.isEmpty {
            topicText = given
        } else if case .certificate(let identity) = credential, identity.topics.count <= 1 {
            topicText = identity.bundleID
        } else {
            return (.missingTopic, "apns-topic is required with token authentication and with multi-topic certificates")
        }
        verdict.topic = topicText
        let resolvedType = pushType ?? APNSPushType.inferred(fromTopic: topicText).pushType
        verdict.pushType = resolvedType
        if let allowed = resolvedType.allowedPriorities, !allowed.contains(priority) {
            if resolvedType != .background || options.rejectBackgroundPriority10 {
                return (.badPriority, "\(resolvedType.rawValue) pushes allow priority \(allowed.sorted().map(String.init).joined(separator: " or "))")
            }
        }
        return nil
    }

    /// 5. Authentication: a trusted certificate, or a valid provider token.
    @inline(__always)
    private func checkCredential(
        _ credential: APNSConnectionCredential, headers: inout APNSHeaders, environment: APNSEnvironment, auth: inout APNSConnectionAuth,
        now instant: PushInstant, verdict: inout APNSVerdict
    ) -> Refusal? {
        switch credential {
        case .certificate:
            verdict.authenticated = true
            return nil
        case .untrustedCertificate:
            return (.badCertificate, nil)
        case .token:
            return authenticate(&headers, environment: environment, auth: &auth, now: instant.secondsSinceEpoch, verdict: &verdict).map {
                ($0.0, $0.1)
            }
        }
    }

    /// 6. The topic: its suffix for the push type, and the bundle it names allowed by the
    /// certificate or the provider token's team.
    @inline(__always)
    private func checkTopic(credential: APNSConnectionCredential, auth: inout APNSConnectionAuth, verdict: inout APNSVerdict) -> Refusal? {
        guard let topicText = verdict.topic, let resolvedType = verdict.pushType else { return nil }
        let bundleID: String
        // The connection's last header values are this push's (stage 4 passed): what their topic
        // made before, if it passed.
        if let known = auth.lastHeaderBundleID {
            bundleID = known
        } else if resolvedType.topicSuffix.isEmpty {
            let inferred = APNSPushType.inferred(fromTopic: topicText)
            if options.rejectTopicPushTypeMismatch, inferred.pushType != .alert, inferred.pushType != resolvedType, resolvedType != .mdm {
                return (.badTopic, "topic \(topicText) is for \(inferred.pushType.rawValue) pushes, not \(resolvedType.rawValue)")
            }
            bundleID = topicText
        } else if topicText.utf8.count > resolvedType.topicSuffix.utf8.count,
            topicText.utf8.reversed().starts(with: resolvedType.topicSuffix.utf8.reversed())
        {
            bundleID = String(Substring(topicText.utf8.dropLast(resolvedType.topicSuffix.utf8.count)))
        } else if options.rejectTopicPushTypeMismatch {
            return (.badTopic, "\(resolvedType.rawValue) pushes need the topic <bundle id>\(resolvedType.topicSuffix), got \(topicText)")
        } else {
            bundleID = topicText
        }
        auth.lastHeaderBundleID = bundleID
        verdict.bundleID = bundleID
        if resolvedType == .liveactivity {
            // Recorded on a rejection too: it says why the topic is not the app's.
            verdict.diagnostics += LiveActivityDiagnostics.topic(topicText)
        }
        switch credential {
        case .certificate(let identity):
            guard resolvedType.allowsCertificateAuth else {
                return (.topicDisallowed, "\(resolvedType.rawValue) pushes need token authentication")
            }
            guard identity.topics.contains(topicText) || (identity.topics.isEmpty && identity.bundleID == topicText) else {
                return (.topicDisallowed, "topic \(topicText) is not in the client certificate (topics: \(identity.topics.joined(separator: ", ")))")
            }
        case .token, .untrustedCertificate:
            if let rejection = authorizeTopic(bundleID: bundleID, auth: &auth) {
                return (.topicDisallowed, rejection)
            }
        }
        return nil
    }

    /// 7. The body: its size for the push type, not empty, JSON (a Live Activity's parsed into
    /// `payload`, once, for the payload rules and the simulated device; other pushes' only
    /// checked, on bytes).
    @inline(__always)
    private func checkBody(_ body: [UInt8], truncated: Bool, payload: inout JSONValue?, verdict: inout APNSVerdict) -> Refusal? {
        guard let resolvedType = verdict.pushType else { return nil }
        if truncated || body.count > resolvedType.maxPayloadSize {
            return (.payloadTooLarge, "\(resolvedType.rawValue) payloads are limited to \(resolvedType.maxPayloadSize) bytes")
        }
        guard !body.isEmpty else { return (.payloadEmpty, nil) }
        let isJSON: Bool
        if resolvedType == .liveactivity {
            payload = JSONValue.parse(body)
            isJSON = payload != nil
            if case .object? = payload { verdict.bodyIsJSONObject = true }
        } else {
            let kind = body.withByteView { JSONScanner($0).validate() }
            isJSON = kind != nil
            verdict.bodyIsJSONObject = kind == .object
        }
        if options.rejectNonJSONBody, !verdict.bodyIsJSONObject {
            return (.badPayload, isJSON ? "the body must be a JSON object" : "the body is not valid JSON (RFC 8259)")
        }
        return nil
    }

    /// 8. The device token: hex, and as the device registry knows it (environment, app, state).
    @inline(__always)
    private func checkDeviceToken(shape: DevicePathShape, environment: APNSEnvironment, verdict: inout APNSVerdict) -> Refusal? {
        guard case .token(isEvenHex: true) = shape, let deviceToken = verdict.deviceToken else {
            return (.badDeviceToken, "device tokens are a non-empty, even-length hex string")
        }
        if let record = devices.record(for: deviceToken) {
            if let registered = record.environment, registered != environment {
                return (.badDeviceToken, "the token belongs to the \(registered.rawValue) environment")
            }
            if let owner = record.bundleID, let bundleID = verdict.bundleID, owner != bundleID {
                return (.deviceTokenNotForTopic, "the token belongs to \(owner), not \(bundleID)")
            }
            switch record.state {
            case .active: break
            case .unregistered(let since):
                verdict.unregisteredTimestamp = since
                return (.unregistered, "the token was unregistered")
            case .expired:
                return (.expiredToken, "the token expired")
            }
        } else if devices.closed {
            return (.badDeviceToken, "the device registry is closed and this token is not in it; register it with PUT /api/v1/devices/\(deviceToken)")
        }
        return nil
    }

    /// 9. Live Activity payload rules: what a device would drop (refused under the strict
    /// profile, recorded as dropped under Apple's).
    @inline(__always)
    private func checkLiveActivity(_ payload: JSONValue?, headers: APNSHeaders, now instant: PushInstant, verdict: inout APNSVerdict) -> Refusal? {
        guard verdict.pushType == .liveactivity else { return nil }
        // The topic's own diagnostics were recorded at step 6.
        let liveHeaders = LiveActivityHeaders(expiration: headers.expiration, collapseID: verdict.collapseID)
        var finding =
            payload.map { LiveActivityPayloadRules.check(payload: $0, now: instant, options: options.liveActivity, headers: liveHeaders) }
            ?? LiveActivityPayloadRules.Finding(violation: .missingAPS)
        var push = payload.flatMap { LiveActivityPush(payload: $0, priority: verdict.priority ?? 10) }
        push?.collapseID = verdict.collapseID
        if finding.violation == nil, let checked = push {
            let typed = activityTypes.check(checked, token: verdict.deviceToken, now: instant)
            finding.violation = typed.violation
            finding.diagnostics += typed.diagnostics
            push?.decodedContentState = typed.decodedContentState
        }
        verdict.liveActivityPush = push
        verdict.diagnostics += finding.diagnostics
        verdict.diagnostics.append("live activity profile: \(options.liveActivity.profile.rawValue)")
        guard let rule = finding.violation else { return nil }
        verdict.liveActivityRule = rule
        switch options.liveActivity.profile {
        case .strict:
            return (APNSRejectionReason(rule.reason, status: rule.status), rule.explanation)
        case .apple:
            verdict.droppedByDevice = true
            verdict.explanation = rule.explanation
            return nil
        }
    }
}
