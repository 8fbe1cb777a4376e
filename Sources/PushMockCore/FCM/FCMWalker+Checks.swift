import PushMockBytes

/// The FCM rules beyond structure (fcm.md §3, §4, §6, §7), read from the walk's slots. Texts are
/// Google's where known; where fcm.md §12 lists them as unknown, PushMock words them in Google's
/// style (README).
extension FCMWalker {
    // MARK: Request and message

    func request() throws(GoogleError) -> FCMSendResult {
        try walk(tape.root, type: FCMSchema.shared.request, deferring: fields.message)
        result.validateOnly = value(fields.validateOnly).flatMap(tape.bool) ?? false
        guard let message = value(fields.message) else {
            throw GoogleError.invalidArgument("Recipient of the message is not set.", field: "message")
        }
        try walk(message, type: fields.messageType)
        try self.message()
        // Moved out, not copied: a copy retained every string in it, and the walker's end
        // released them again.
        var taken = FCMSendResult()
        swap(&taken, &result)
        return taken
    }

    /// The target fields of a message: members of one proto oneof.
    enum TargetField: CaseIterable {
        case token, topic, condition, fid

        /// The field's name, for the error that refuses a second target (a literal: no retain).
        var name: String {
            switch self {
            case .token: "token"
            case .topic: "topic"
            case .condition: "condition"
            case .fid: "fid"
            }
        }

        /// The field's index in the schema (``FCMField/indices``).
        var field: Int {
            switch self {
            case .token: FCMField.indices.token
            case .topic: FCMField.indices.topic
            case .condition: FCMField.indices.condition
            case .fid: FCMField.indices.fid
            }
        }
    }

    /// ``TargetField/allCases``, made once: `allCases` may build a new array on each call.
    static let targetFields = TargetField.allCases

    func message() throws(GoogleError) {
        // Targets: a proto oneof; the second one set (in the order of their last members) is
        // refused.
        var first: (target: TargetField, value: Int)?
        var second: (target: TargetField, value: Int)?
        for target in Self.targetFields {
            guard let value = value(target.field) else { continue }
            if let earlier = first, earlier.value < value {
                if second.map({ value < $0.value }) ?? true { second = (target, value) }
            } else {
                second = first
                first = (target, value)
            }
        }
        if let second {
            let message = "Invalid value at 'message' (oneof), oneof field 'target' is already set. Cannot set '\(second.target.name)'"
            throw GoogleError(
                code: 400, message: message, status: "INVALID_ARGUMENT", details: [.badRequest([.init(field: "message", description: message)])])
        }
        let (target, checked) = readTarget(first)
        // Live Activity messages (fcm.md §7 and PushMock's product rule).
        if value(fields.apns) != nil, let token = value(fields.liveActivityToken).flatMap(tape.string) {
            result.liveActivityToken = token
            guard case .token = target else {
                guard let target else {
                    throw GoogleError.invalidArgument("Recipient of the message is not set.", field: "message")
                }
                throw GoogleError.invalidArgument(
                    "A Live Activity message (apns.live_activity_token) must target a registration token, not a \(target.kind).",
                    field: "message.\(target.kind)")
            }
            for (name, field) in [("notification", fields.notification), ("data", fields.data)] {
                if let value = value(field), tape.memberCount(of: value) > 0 {
                    throw GoogleError.invalidArgument(
                        "A Live Activity message must not carry message.\(name): iOS drops it; put the content in apns.payload.aps (content-state).",
                        field: "message.\(name)"
                    )
                }
            }
        }
        guard let target else {
            throw GoogleError.invalidArgument("Recipient of the message is not set.", field: "message")
        }
        if !checked { try checkTarget(target) }
        result.target = consume target  // moved: a copy cost a retain and a release
        if let data = value(fields.data) { try checkData(data, path: "message.data") }
        if value(fields.androidV2) != nil {
            try checkAndroidV2()
        } else if value(fields.android) != nil {
            try checkAndroid(FCMField.androidV1Config)
        }
        if value(fields.webpush) != nil { try checkWebpush() }
        if value(fields.apns) != nil { try checkAPNS() }
        if result.isLiveActivity {
            try checkLiveActivityPayload()
        }
        if let label = value(fields.analyticsLabel) {
            try checkAnalyticsLabel(label, path: "message.fcm_options.analytics_label")
        }
        var size = 0
        if let data = value(fields.data) {
            tape.forEachMember(of: data) { key, value in size += tape.value(key).range.count + tape.value(value).range.count - 4 }
        }
        if let notification = value(fields.notification) { size += tape.value(notification).range.count }
        if size > validator.maxMessagePayloadSize {
            throw GoogleError(
                code: 400, message: "Request contains an invalid argument.", status: "INVALID_ARGUMENT",
                details: [
                    .fcmError(.invalidArgument),
                    .badRequest([
                        .init(
                            field: "message", description: "data and notification are \(size) bytes; the limit is \(validator.maxMessagePayloadSize)")
                    ]),
                ])
        }
    }

    /// The APNs Live Activity rules on `apns.payload` (the same engine as `/3/device`).
    func checkLiveActivityPayload() throws(GoogleError) {
        var finding: LiveActivityPayloadRules.Finding
        if let index = apnsPayload {
            // Built from the tape the body was parsed into once; the device reads the same tree.
            let payload = tape.jsonValue(at: index)
            let headers = LiveActivityHeaders(topic: result.apnsTopic, expiration: result.apnsExpiration, collapseID: result.apnsCollapseID)
            finding = LiveActivityPayloadRules.check(payload: payload, now: now, options: validator.liveActivity, headers: headers)
            var push = LiveActivityPush(payload: payload, priority: result.apnsPriority.flatMap { Int($0) } ?? 10)
            push?.collapseID = result.apnsCollapseID
            if finding.violation == nil, let checked = push {
                let typed = validator.activityTypes.check(checked, token: result.liveActivityToken, now: now)
                finding.violation = typed.violation
                finding.diagnostics += typed.diagnostics
                push?.decodedContentState = typed.decodedContentState
            }
            result.liveActivityPush = push
        } else {
            finding = LiveActivityPayloadRules.Finding(violation: .missingAPS)
        }
        result.diagnostics += finding.diagnostics
        result.diagnostics.append("live activity profile: \(validator.liveActivity.profile.rawValue)")
        guard let rule = finding.violation else { return }
        switch validator.liveActivity.profile {
        case .strict:
            var error = GoogleError.invalidArgument(rule.explanation, field: "message.apns.payload.aps")
            error.reason = rule.reason
            throw error
        case .apple:
            result.liveActivityDrop = rule
        }
    }

    // MARK: Rules

    /// The target the member `first` names. The connection's last valid token again comes with
    /// its check done (`checked`): it is neither read nor checked again.
    private func readTarget(_ first: (target: TargetField, value: Int)?) -> (target: FCMSendResult.Target?, checked: Bool) {
        guard let (target, value) = first else { return (nil, false) }
        if target == .token, let known = lastValidToken, lastValidTokenStrict == validator.strictRegistrationTokens,
            tape.isString(value, writtenAs: known)
        {
            return (.token(known), true)
        }
        guard let text = tape.string(value) else { return (nil, false) }
        switch target {
        case .token: return (.token(text), false)
        case .topic: return (.topic(text), false)
        case .condition: return (.condition(text), false)
        case .fid: return (.fid(text), false)
        }
    }

    /// Checks `target`; a valid registration token is kept for the connection's next message.
    func checkTarget(_ target: FCMSendResult.Target) throws(GoogleError) {
        switch target {
        case .token(let token):
            guard Self.isRegistrationToken(token, strict: validator.strictRegistrationTokens) else {
                throw GoogleError.fcm(.invalidArgument, message: "The registration token is not a valid FCM registration token")
            }
            lastValidToken = token
            lastValidTokenStrict = validator.strictRegistrationTokens
        case .fid(let fid):
            // FCM answers a string that cannot be an installation ID as an unknown one: 404
            // UNREGISTERED, with and without validate_only (firebase-admin's integration tests).
            guard Self.isInstallationID(fid) else { throw GoogleError.fcm(.unregistered) }
        case .topic(let topic):
            guard Self.isTopicName(topic) else {
                throw GoogleError.invalidArgument(
                    "Invalid value at 'message.topic': topic names match [a-zA-Z0-9-_.~%]{1,900}, without a /topics/ prefix; got \"\(topic)\"",
                    field: "message.topic"
                )
            }
        case .condition(let condition):
            do {
                let topics = try FCMCondition.topics(in: condition)
                guard topics.count <= 5 else {
                    throw GoogleError.invalidArgument("Invalid condition: at most 5 topics, got \(topics.count)", field: "message.condition")
                }
            } catch let error as FCMCondition.Problem {
                throw GoogleError.invalidArgument("Invalid condition expression: \(error.description)", field: "message.condition")
            } catch let error as GoogleError {
                throw error
            } catch {
                throw GoogleError.invalidArgument("Invalid condition expression", field: "message.condition")
            }
        }
    }

    /// Reserved data keys: `from`, `message_type`, and `google.` or `gcm.notification.` prefixes.
    func checkData(_ data: Int, path: String) throws(GoogleError) {
        var child = data + 1
        while child < tape.entries[data].end {
            let reserved = withStringBytes(child) { key in
                key.equals("from") || key.equals("message_type") || key.hasPrefix("google.") || key.hasPrefix("gcm.notification.")
            }
            if reserved {
                throw GoogleError.invalidArgument("Invalid data payload key: \(tape.keyText(child))", field: path)
            }
            child = tape.entries[child + 1].end
        }
    }
}
