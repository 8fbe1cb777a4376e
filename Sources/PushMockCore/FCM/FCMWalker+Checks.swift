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

    /// The seconds of the duration at `value`: ``checkDuration(_:)``'s reading when it was the last it read.
    private func duration(at value: Int) -> Double? {
        lastDuration.value == value ? lastDuration.seconds : withStringBytes(value, FCMDuration.seconds)
    }

    /// `android` or `android_v2`: what the two share.
    func checkAndroid(_ fields: FCMField.AndroidFields) throws(GoogleError) {
        if let ttl = value(fields.ttl), let seconds = duration(at: ttl), seconds > 2_419_200 {
            throw GoogleError.invalidArgument(
                "The TTL must be between 0 and 2419200 seconds (4 weeks), got \(tape.string(ttl) ?? "")", field: "\(fields.path).ttl")
        }
        if let data = value(fields.data) { try checkData(data, path: "\(fields.path).data") }
        if let label = value(fields.analyticsLabel) {
            try checkAnalyticsLabel(label, path: "\(fields.path).fcm_options.analytics_label")
        }
        guard value(fields.notification) != nil else { return }
        if let color = value(fields.color), !withStringBytes(color, Self.isHexColor) {
            throw GoogleError.invalidArgument(
                "Invalid color: \(tape.string(color) ?? ""); expected #rrggbb", field: "\(fields.notificationPath).color")
        }
        for localization in fields.localizations where value(localization.args) != nil && value(localization.key) == nil {
            throw GoogleError.invalidArgument(
                "\(localization.name) requires \(localization.keyName)", field: "\(fields.notificationPath).\(localization.name)")
        }
        if value(fields.lightSettings) != nil {
            for required in fields.lightSettingsRequired where value(required.field) == nil {
                throw GoogleError.invalidArgument(
                    "light_settings.\(required.name) is required", field: "\(fields.notificationPath).light_settings.\(required.name)")
            }
        }
    }

    /// `android_v2` (fcm.md §3). Where Google's documentation is silent, PushMock's choices
    /// (docs/fcm.md): `android` beside it is refused (the Admin SDKs' AndroidConfigV2 changes refuse
    /// it too), its union is a proto oneof named `message_type`, and one of the two must be set.
    func checkAndroidV2() throws(GoogleError) {
        if value(fields.android) != nil {
            throw GoogleError.invalidArgument(
                "message.android and message.android_v2 cannot both be set; AndroidConfigV2 replaces AndroidConfig",
                field: "message.android_v2")
        }
        let remote = value(fields.remoteNotification)
        let background = value(fields.backgroundSync)
        if let remote, let background {
            let second = remote < background ? "background_sync" : "remote_notification"
            let message = "Invalid value at 'message.android_v2' (oneof), oneof field 'message_type' is already set. Cannot set '\(second)'"
            throw GoogleError(
                code: 400, message: message, status: "INVALID_ARGUMENT",
                details: [.badRequest([.init(field: "message.android_v2", description: message)])])
        }
        guard remote != nil || background != nil else {
            throw GoogleError.invalidArgument(
                "message.android_v2 must set remote_notification (an urgent, user-visible notification) or background_sync (a non-urgent data message)",
                field: "message.android_v2")
        }
        result.androidV2Kind = remote != nil ? .remoteNotification : .backgroundSync
        try checkAndroid(FCMField.androidV2Config)
    }

    func checkWebpush() throws(GoogleError) {
        if let data = value(fields.webpushData) { try checkData(data, path: "message.webpush.data") }
        if let link = value(fields.webpushLink), let text = tape.string(link), !text.lowercased().hasPrefix("https://") {
            throw GoogleError.invalidArgument("The link must be an HTTPS URL, got \(text)", field: "message.webpush.fcm_options.link")
        }
        if let label = value(fields.webpushAnalyticsLabel) {
            try checkAnalyticsLabel(label, path: "message.webpush.fcm_options.analytics_label")
        }
    }

    func checkAPNS() throws(GoogleError) {
        if let headers = value(fields.apnsHeaders) {
            var pushType: String?
            var topic: String?
            var priority: String?
            var expiration: String?
            var collapseID: String?
            var child = headers + 1
            while child < tape.entries[headers].end {
                let value = child + 1
                child = tape.entries[value].end
                let header = withStringBytes(value - 1, APNSHeader.init(name:))
                guard let header, tape.kind(value) == .string else { continue }
                if case .priority = header {
                    // One of three values, kept as a literal: decoding it made a string a message.
                    priority = withStringBytes(value, Self.priorityText)
                    guard priority != nil else {
                        throw GoogleError.invalidArgument(
                            "Invalid apns-priority: \(tape.string(value) ?? ""); expected 10, 5 or 1", field: "message.apns.headers")
                    }
                    continue
                }
                guard let text = tape.string(value) else { continue }
                switch header {
                case .priority:
                    continue  // read above
                case .expiration:
                    expiration = text
                    guard Int64(text) != nil else {
                        throw GoogleError.invalidArgument("Invalid apns-expiration: \(text); expected UNIX seconds", field: "message.apns.headers")
                    }
                case .collapseID:
                    collapseID = text
                    guard text.utf8.count <= 64 else {
                        throw GoogleError.invalidArgument(
                            "The length of [apns-collapse-id] header must not exceed [64] bytes.", field: "message.apns.headers")
                    }
                case .pushType:
                    pushType = text
                    guard APNSPushType(wire: text.lowercased()) != nil else {
                        throw GoogleError.invalidArgument("Invalid apns-push-type: \(text)", field: "message.apns.headers")
                    }
                case .topic:
                    topic = text
                }
            }
            // Only what was set is written: each write releases the `nil` it replaces (a call).
            if let pushType { result.apnsPushType = consume pushType }
            if let topic { result.apnsTopic = consume topic }
            if let priority { result.apnsPriority = consume priority }
            if let expiration { result.apnsExpiration = consume expiration }
            if let collapseID { result.apnsCollapseID = consume collapseID }
        }
        if let payload = value(fields.apnsPayload) {
            let range = tape.value(payload).range
            result.apnsPayloadRange = range
            apnsPayload = payload
            if range.count > 4096 {
                throw GoogleError(
                    code: 400, message: "Request contains an invalid argument.", status: "INVALID_ARGUMENT",
                    details: [
                        .fcmError(.invalidArgument),
                        .badRequest([.init(field: "message.apns.payload", description: "the APNs payload is \(range.count) bytes; the limit is 4096")]
                        ),
                    ])
            }
            if let aps = tape.member("aps", in: payload), tape.kind(aps) != .object {
                throw GoogleError.invalidArgument("apns.payload.aps must be an object", field: "message.apns.payload")
            }
        }
        if let label = value(fields.apnsAnalyticsLabel) {
            try checkAnalyticsLabel(label, path: "message.apns.fcm_options.analytics_label")
        }
        if result.isLiveActivity, let pushType = result.apnsPushType, pushType.lowercased() != "liveactivity" {
            throw GoogleError.invalidArgument(
                "A Live Activity message needs apns-push-type liveactivity (or none), got \(pushType)", field: "message.apns.headers")
        }
    }

    /// The `apns-priority` values FCM takes, as literals; nil for any other.
    static func priorityText(_ bytes: ByteView) -> String? {
        bytes.equals("10") ? "10" : bytes.equals("5") ? "5" : bytes.equals("1") ? "1" : nil
    }

    /// The `apns.headers` FCM reads (names compared without regard to ASCII case).
    enum APNSHeader: CaseIterable {
        case priority, expiration, collapseID, pushType, topic

        /// The header `name` spells, in any case; nil for any other. By length first: each name's is its own.
        init?(name: ByteView) {
            let header: APNSHeader? =
                switch name.count {
                case 13: .priority
                case 15: .expiration
                case 16: .collapseID
                case 14: .pushType
                case 10: .topic
                default: nil
                }
            guard let header, name.equalsIgnoringCase(header.name) else { return nil }
            self = header
        }

        var name: StaticString {
            switch self {
            case .priority: "apns-priority"
            case .expiration: "apns-expiration"
            case .collapseID: "apns-collapse-id"
            case .pushType: "apns-push-type"
            case .topic: "apns-topic"
            }
        }
    }

    func checkAnalyticsLabel(_ index: Int, path: String) throws(GoogleError) {
        let label = tape.string(index) ?? ""
        guard !label.isEmpty, label.utf8.count <= 50, label.utf8.allSatisfy(Self.isTopicByte) else {
            throw GoogleError.invalidArgument("Analytics label must match [a-zA-Z0-9-_.~%]{1,50}, got \"\(label)\"", field: path)
        }
    }
}
