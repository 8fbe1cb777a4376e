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

    /// The same, into the caller's `verdict` (what the push path uses: a verdict built here and
    /// returned would be copied out and destroyed, one retain and one release per field).
    public func validate(
        _ request: APNSRequest,
        credential: APNSConnectionCredential,
        auth: inout APNSConnectionAuth,
        now instant: PushInstant,
        ids: inout IDGenerator,
        into verdict: inout APNSVerdict
    ) {
        // APNs reasons in seconds: JWT `iat`, `aps.timestamp`.
        let now = instant.secondsSinceEpoch
        var headers = APNSHeaders(request.headers)
        verdict = APNSVerdict(apnsID: headers.apnsID.flatMap { APNSHeaders.isUUID($0) ? $0 : nil } ?? ids.nextUUIDString())
        func reject(_ reason: APNSRejectionReason, _ explanation: String? = nil) {
            verdict.rejection = reason
            verdict.explanation = explanation
        }

        // 1. Connection.
        if case .untrustedCertificate(let subject, let problem) = credential {
            return reject(.badCertificate, "client certificate \(subject) is not trusted: \(problem)")
        }
        if case .certificate(let identity) = credential {
            verdict.identity = identity.subject
            if !identity.environments.isEmpty, !identity.environments.contains(request.environment) {
                return reject(
                    .badCertificateEnvironment,
                    "the certificate is for \(identity.environments.map(\.rawValue).sorted().joined(separator: ", ")), the request went to \(request.environment.rawValue)"
                )
            }
        }

        // 2. Method and path.
        guard request.method == "POST" else { return reject(.methodNotAllowed) }
        let shape = Self.devicePathShape(request.path)
        switch shape {
        case .badPath: return reject(.badPath)
        case .missingToken: return reject(.missingDeviceToken)
        case .token: break
        }
        // The shape has proven there is a token, and nothing after it.
        verdict.deviceToken = APNSDevicePath.token(in: request.path).map(String.init)

        // 3. Duplicates.
        if let duplicate = headers.duplicate {
            return reject(.duplicateHeaders, "\(duplicate) appears more than once")
        }

        // 4. Header syntax.
        if headers.apnsID != nil, verdict.apnsID != headers.apnsID {
            return reject(.badMessageID, "apns-id must be a UUID (8-4-4-4-12 hex digits)")
        }
        if let expiration = headers.expiration {
            guard let value = Int64(expiration), value >= 0 else {
                return reject(.badExpirationDate, "apns-expiration must be an integer number of seconds")
            }
            verdict.expiration = value
        }
        let priority: Int
        if let text = headers.priority {
            guard let value = Int(text), [1, 5, 10].contains(value) else { return reject(.badPriority, "apns-priority must be 10, 5 or 1") }
            priority = value
        } else {
            priority = 10
        }
        verdict.priority = priority
        var pushType: APNSPushType?
        if let text = headers.pushType {
            guard let known = APNSPushType(wire: text) else {
                return reject(.invalidPushType, "apns-push-type must be one of \(APNSPushType.all.map(\.rawValue).joined(separator: ", "))")
            }
            pushType = known
        }
        if let collapseID = headers.collapseID {
            guard collapseID.utf8.count <= 64 else {
                return reject(.badCollapseID, "apns-collapse-id is \(collapseID.utf8.count) bytes; the limit is 64")
            }
            verdict.collapseID = collapseID
        }
        let topicText: String
        if let given = headers.topic, !given.isEmpty {
            topicText = given
        } else if case .certificate(let identity) = credential, identity.topics.count <= 1 {
            topicText = identity.bundleID
        } else {
            return reject(.missingTopic, "apns-topic is required with token authentication and with multi-topic certificates")
        }
        verdict.topic = topicText
        let resolvedType = pushType ?? APNSPushType.inferred(fromTopic: topicText).pushType
        verdict.pushType = resolvedType
        if let allowed = resolvedType.allowedPriorities, !allowed.contains(priority) {
            if resolvedType != .background || options.rejectBackgroundPriority10 {
                return reject(
                    .badPriority, "\(resolvedType.rawValue) pushes allow priority \(allowed.sorted().map(String.init).joined(separator: " or "))")
            }
        }

        // 5. Authentication.
        switch credential {
        case .certificate:
            verdict.authenticated = true
        case .untrustedCertificate:
            return reject(.badCertificate)
        case .token:
            if let rejection = authenticate(&headers, environment: request.environment, auth: &auth, now: now, verdict: &verdict) {
                return reject(rejection.0, rejection.1)
            }
        }

        // 6. Topic.
        let bundleID: String
        if resolvedType.topicSuffix.isEmpty {
            let inferred = APNSPushType.inferred(fromTopic: topicText)
            if options.rejectTopicPushTypeMismatch, inferred.pushType != .alert, inferred.pushType != resolvedType, resolvedType != .mdm {
                return reject(.badTopic, "topic \(topicText) is for \(inferred.pushType.rawValue) pushes, not \(resolvedType.rawValue)")
            }
            bundleID = topicText
        } else if topicText.utf8.count > resolvedType.topicSuffix.utf8.count,
            topicText.utf8.reversed().starts(with: resolvedType.topicSuffix.utf8.reversed())
        {
            bundleID = String(Substring(topicText.utf8.dropLast(resolvedType.topicSuffix.utf8.count)))
        } else if options.rejectTopicPushTypeMismatch {
            return reject(.badTopic, "\(resolvedType.rawValue) pushes need the topic <bundle id>\(resolvedType.topicSuffix), got \(topicText)")
        } else {
            bundleID = topicText
        }
        verdict.bundleID = bundleID
        if resolvedType == .liveactivity {
            // Recorded on a rejection too: it says why the topic is not the app's.
            verdict.diagnostics += LiveActivityDiagnostics.topic(topicText)
        }
        switch credential {
        case .certificate(let identity):
            guard resolvedType.allowsCertificateAuth else {
                return reject(.topicDisallowed, "\(resolvedType.rawValue) pushes need token authentication")
            }
            guard identity.topics.contains(topicText) || (identity.topics.isEmpty && identity.bundleID == topicText) else {
                return reject(
                    .topicDisallowed, "topic \(topicText) is not in the client certificate (topics: \(identity.topics.joined(separator: ", ")))")
            }
        case .token, .untrustedCertificate:
            if let rejection = authorizeTopic(bundleID: bundleID, auth: &auth) {
                return reject(.topicDisallowed, rejection)
            }
        }

        // 7. Body.
        if request.bodyTruncated || request.body.count > resolvedType.maxPayloadSize {
            return reject(.payloadTooLarge, "\(resolvedType.rawValue) payloads are limited to \(resolvedType.maxPayloadSize) bytes")
        }
        guard !request.body.isEmpty else { return reject(.payloadEmpty) }
        // A Live Activity payload is parsed once here: the same tree serves the payload rules and
        // the simulated device. Other pushes are only checked, on bytes.
        var payload: JSONValue?
        let isJSON: Bool
        if resolvedType == .liveactivity {
            payload = JSONValue.parse(request.body)
            isJSON = payload != nil
            if case .object? = payload { verdict.bodyIsJSONObject = true }
        } else {
            let kind = request.body.withByteView { JSONScanner($0).validate() }
            isJSON = kind != nil
            verdict.bodyIsJSONObject = kind == .object
        }
        if options.rejectNonJSONBody, !verdict.bodyIsJSONObject {
            return reject(.badPayload, isJSON ? "the body must be a JSON object" : "the body is not valid JSON (RFC 8259)")
        }

        // 8. Device token.
        guard case .token(isEvenHex: true) = shape, let deviceToken = verdict.deviceToken else {
            return reject(.badDeviceToken, "device tokens are a non-empty, even-length hex string")
        }
        if let record = devices.record(for: deviceToken) {
            if let environment = record.environment, environment != request.environment {
                return reject(.badDeviceToken, "the token belongs to the \(environment.rawValue) environment")
            }
            if let owner = record.bundleID, owner != bundleID {
                return reject(.deviceTokenNotForTopic, "the token belongs to \(owner), not \(bundleID)")
            }
            switch record.state {
            case .active: break
            case .unregistered(let since):
                verdict.unregisteredTimestamp = since
                return reject(.unregistered, "the token was unregistered")
            case .expired:
                return reject(.expiredToken, "the token expired")
            }
        } else if devices.closed {
            return reject(
                .badDeviceToken, "the device registry is closed and this token is not in it; register it with PUT /api/v1/devices/\(deviceToken)")
        }

        // 9. Live Activity payload rules (what a device would drop).
        if resolvedType == .liveactivity {
            // The topic's own diagnostics were recorded at step 6.
            let liveHeaders = LiveActivityHeaders(expiration: headers.expiration, collapseID: verdict.collapseID)
            var finding =
                payload.map { LiveActivityPayloadRules.check(payload: $0, now: instant, options: options.liveActivity, headers: liveHeaders) }
                ?? LiveActivityPayloadRules.Finding(violation: .missingAPS)
            var push = payload.flatMap { LiveActivityPush(payload: $0, priority: priority) }
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
            if let rule = finding.violation {
                verdict.liveActivityRule = rule
                switch options.liveActivity.profile {
                case .strict:
                    return reject(APNSRejectionReason(rule.reason, status: rule.status), rule.explanation)
                case .apple:
                    verdict.droppedByDevice = true
                    verdict.explanation = rule.explanation
                }
            }
        }
    }

    package enum DevicePathShape: Equatable {
        case badPath
        case missingToken
        case token(isEvenHex: Bool)
    }

    /// `/3/device/<token>` in one pass over the bytes.
    package static func devicePathShape(_ path: String) -> DevicePathShape {
        return path.withUTF8View { bytes -> DevicePathShape in
            let prefix: StaticString = "/3/device/"
            let prefixLength = prefix.utf8CodeUnitCount
            if bytes.count == prefixLength - 1 || bytes.count == prefixLength {
                // "/3/device" or "/3/device/"
                for index in 0..<bytes.count where bytes[index] != prefix.utf8Start[index] {
                    return .badPath
                }
                return .missingToken
            }
            guard bytes.count > prefixLength else { return .badPath }
            for index in 0..<prefixLength where bytes[index] != prefix.utf8Start[index] {
                return .badPath
            }
            var hex = (bytes.count - prefixLength) % 2 == 0
            // Eight hex digits at a time (a token is 64 of them); a word with anything else is
            // looked at byte by byte below, from its start.
            var start = prefixLength
            while start + 8 <= bytes.count, SWAR.allHexDigits(bytes.loadUInt64(at: start)) {
                start += 8
            }
            for index in start..<bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") { return .badPath }
                if hex, JSONScanner.hexValue(byte) == nil { hex = false }
            }
            return .token(isEvenHex: hex)
        }
    }
}
