import PushMockBytes

/// The FCM rules for the platform blocks (`android`, `android_v2`, `webpush`, `apns`) and the
/// analytics labels they and the message carry (fcm.md §4, §6), read from the walk's slots.
extension FCMWalker {
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
