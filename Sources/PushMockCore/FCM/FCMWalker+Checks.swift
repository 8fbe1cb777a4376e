/// The FCM rules beyond structure (fcm.md §3, §4, §6, §7), read from the walk's slots. Texts are
/// Google's where known; where fcm.md §12 lists them as unknown, PushMock words them in Google's
/// style (README).
extension FCMWalker {
    // MARK: Request and message

    func request() throws(GoogleError) -> FCMSendResult {
        try walk(tape.root, type: FCMSchema.shared.request, deferring: FCMField.message)
        result.validateOnly = value(FCMField.validateOnly).flatMap(tape.bool) ?? false
        guard let message = value(FCMField.message) else {
            throw GoogleError.invalidArgument("Recipient of the message is not set.", field: "message")
        }
        try walk(message, type: FCMField.messageType)
        try self.message()
        return result
    }

    static let targets: [(name: String, field: Int)] = [("token", FCMField.token), ("topic", FCMField.topic), ("condition", FCMField.condition), ("fid", FCMField.fid)]

    func message() throws(GoogleError) {
        // Targets: a proto oneof; the second one set (in the order of their last members) is refused.
        var first: (name: String, value: Int)?
        var second: (name: String, value: Int)?
        for (name, field) in Self.targets {
            guard let value = value(field) else { continue }
            if let earlier = first, earlier.value < value {
                if second.map({ value < $0.value }) ?? true { second = (name, value) }
            } else {
                second = first
                first = (name, value)
            }
        }
        if let second {
            let message = "Invalid value at 'message' (oneof), oneof field 'target' is already set. Cannot set '\(second.name)'"
            throw GoogleError(code: 400, message: message, status: "INVALID_ARGUMENT", details: [.badRequest([.init(field: "message", description: message)])])
        }
        var target: FCMSendResult.Target?
        if let (name, value) = first, let text = tape.string(value) {
            switch name {
            case "token": target = .token(text)
            case "topic": target = .topic(text)
            case "condition": target = .condition(text)
            default: target = .fid(text)
            }
        }
        // Live Activity messages (fcm.md §7 and PushMock's product rule).
        if value(FCMField.apns) != nil, let token = value(FCMField.liveActivityToken).flatMap(tape.string) {
            result.liveActivityToken = token
            guard case .token = target else {
                guard let target else {
                    throw GoogleError.invalidArgument("Recipient of the message is not set.", field: "message")
                }
                throw GoogleError.invalidArgument("A Live Activity message (apns.live_activity_token) must target a registration token, not a \(target.kind).", field: "message.\(target.kind)")
            }
            for (name, field) in [("notification", FCMField.notification), ("data", FCMField.data)] {
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
        result.target = target
        try checkTarget(target)
        if let data = value(FCMField.data) { try checkData(data, path: "message.data") }
        if value(FCMField.android) != nil { try checkAndroid() }
        if value(FCMField.webpush) != nil { try checkWebpush() }
        if value(FCMField.apns) != nil { try checkAPNS() }
        if result.isLiveActivity {
            try checkLiveActivityPayload()
        }
        if let label = value(FCMField.analyticsLabel) {
            try checkAnalyticsLabel(label, path: "message.fcm_options.analytics_label")
        }
        var size = 0
        if let data = value(FCMField.data) {
            tape.forEachMember(of: data) { key, value in size += tape.value(key).range.count + tape.value(value).range.count - 4 }
        }
        if let notification = value(FCMField.notification) { size += tape.value(notification).range.count }
        if size > validator.maxMessagePayloadSize {
            throw GoogleError(code: 400, message: "Request contains an invalid argument.", status: "INVALID_ARGUMENT", details: [
                .fcmError(.invalidArgument),
                .badRequest([.init(field: "message", description: "data and notification are \(size) bytes; the limit is \(validator.maxMessagePayloadSize)")]),
            ])
        }
    }

    /// The APNs Live Activity rules on `apns.payload` (the same engine as `/3/device`).
    func checkLiveActivityPayload() throws(GoogleError) {
        var finding: LiveActivityPayloadRules.Finding
        if let index = apnsPayload {
            // Built from the tape the body was parsed into once; the device reads the same tree.
            let payload = tape.jsonValue(at: index)
            finding = LiveActivityPayloadRules.check(payload: payload, now: now, options: validator.liveActivity)
            var push = LiveActivityPush(payload: payload, priority: result.apnsPriority.flatMap { Int($0) } ?? 10)
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

    func checkTarget(_ target: FCMSendResult.Target) throws(GoogleError) {
        switch target {
        case .token(let token):
            guard Self.isRegistrationToken(token, strict: validator.strictRegistrationTokens) else {
                throw GoogleError.fcm(.invalidArgument, message: "The registration token is not a valid FCM registration token")
            }
        case .fid(let fid):
            guard !fid.isEmpty, fid.utf8.allSatisfy(Self.isBase64URL) else {
                throw GoogleError.invalidArgument("The installation ID is not a valid Firebase installation ID", field: "message.fid")
            }
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
                Self.equals(key, "from") || Self.equals(key, "message_type") || Self.hasPrefix(key, "google.") || Self.hasPrefix(key, "gcm.notification.")
            }
            if reserved {
                throw GoogleError.invalidArgument("Invalid data payload key: \(tape.keyText(child))", field: path)
            }
            child = tape.entries[child + 1].end
        }
    }

    func checkAndroid() throws(GoogleError) {
        if let ttl = value(FCMField.androidTTL), let seconds = withStringBytes(ttl, FCMDuration.seconds), seconds > 2_419_200 {
            throw GoogleError.invalidArgument("The TTL must be between 0 and 2419200 seconds (4 weeks), got \(tape.string(ttl) ?? "")", field: "message.android.ttl")
        }
        if let data = value(FCMField.androidData) { try checkData(data, path: "message.android.data") }
        if let label = value(FCMField.androidAnalyticsLabel) {
            try checkAnalyticsLabel(label, path: "message.android.fcm_options.analytics_label")
        }
        guard value(FCMField.androidNotification) != nil else { return }
        if let color = value(FCMField.androidColor), !withStringBytes(color, Self.isHexColor) {
            throw GoogleError.invalidArgument("Invalid color: \(tape.string(color) ?? ""); expected #rrggbb", field: "message.android.notification.color")
        }
        for localization in FCMField.localizations where value(localization.args) != nil && value(localization.key) == nil {
            throw GoogleError.invalidArgument("\(localization.name) requires \(localization.keyName)", field: "message.android.notification.\(localization.name)")
        }
        if value(FCMField.lightSettings) != nil {
            for required in FCMField.lightSettingsRequired where value(required.field) == nil {
                throw GoogleError.invalidArgument("light_settings.\(required.name) is required", field: "message.android.notification.light_settings.\(required.name)")
            }
        }
    }

    func checkWebpush() throws(GoogleError) {
        if let data = value(FCMField.webpushData) { try checkData(data, path: "message.webpush.data") }
        if let link = value(FCMField.webpushLink), let text = tape.string(link), !text.lowercased().hasPrefix("https://") {
            throw GoogleError.invalidArgument("The link must be an HTTPS URL, got \(text)", field: "message.webpush.fcm_options.link")
        }
        if let label = value(FCMField.webpushAnalyticsLabel) {
            try checkAnalyticsLabel(label, path: "message.webpush.fcm_options.analytics_label")
        }
    }

    func checkAPNS() throws(GoogleError) {
        if let headers = value(FCMField.apnsHeaders) {
            var pushType: String?
            var topic: String?
            var priority: String?
            var child = headers + 1
            while child < tape.entries[headers].end {
                let value = child + 1
                child = tape.entries[value].end
                let header = withStringBytes(value - 1) { key in APNSHeader.all.first { Self.equalsIgnoringCase(key, $0.name) } }
                guard let header, let text = tape.string(value) else { continue }
                switch header {
                case .priority:
                    priority = text
                    guard text == "10" || text == "5" || text == "1" else {
                        throw GoogleError.invalidArgument("Invalid apns-priority: \(text); expected 10, 5 or 1", field: "message.apns.headers")
                    }
                case .expiration:
                    guard Int64(text) != nil else {
                        throw GoogleError.invalidArgument("Invalid apns-expiration: \(text); expected UNIX seconds", field: "message.apns.headers")
                    }
                case .collapseID:
                    guard text.utf8.count <= 64 else {
                        throw GoogleError.invalidArgument("The length of [apns-collapse-id] header must not exceed [64] bytes.", field: "message.apns.headers")
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
            result.apnsPushType = pushType
            result.apnsTopic = topic
            result.apnsPriority = priority
        }
        if let payload = value(FCMField.apnsPayload) {
            let range = tape.value(payload).range
            result.apnsPayloadRange = range
            apnsPayload = payload
            if range.count > 4096 {
                throw GoogleError(code: 400, message: "Request contains an invalid argument.", status: "INVALID_ARGUMENT", details: [
                    .fcmError(.invalidArgument),
                    .badRequest([.init(field: "message.apns.payload", description: "the APNs payload is \(range.count) bytes; the limit is 4096")]),
                ])
            }
            if let aps = tape.member("aps", in: payload), tape.kind(aps) != .object {
                throw GoogleError.invalidArgument("apns.payload.aps must be an object", field: "message.apns.payload")
            }
        }
        if let label = value(FCMField.apnsAnalyticsLabel) {
            try checkAnalyticsLabel(label, path: "message.apns.fcm_options.analytics_label")
        }
        if result.isLiveActivity, let pushType = result.apnsPushType, pushType.lowercased() != "liveactivity" {
            throw GoogleError.invalidArgument("A Live Activity message needs apns-push-type liveactivity (or none), got \(pushType)", field: "message.apns.headers")
        }
    }

    /// The `apns.headers` FCM reads (names compared without regard to ASCII case).
    enum APNSHeader: CaseIterable {
        case priority, expiration, collapseID, pushType, topic

        /// `allCases`, made once (`allCases` builds a new array on every call).
        static let all = allCases

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

    // MARK: Bytes

    static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
        bytes.count == text.utf8CodeUnitCount && hasPrefix(bytes, text)
    }

    static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
        for offset in 0..<prefix.utf8CodeUnitCount where bytes[offset] != prefix.utf8Start[offset] {
            return false
        }
        return true
    }

    /// Whether `bytes` are `lowercase` but for the case of ASCII letters.
    static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        for offset in 0..<bytes.count {
            var byte = bytes[offset]
            if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") { byte |= 0x20 }
            if byte != lowercase.utf8Start[offset] { return false }
        }
        return true
    }

    /// `2026-01-01T00:00:00Z`, with an optional fraction and/or an offset.
    static func isRFC3339(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 20 else { return false }
        for index in [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18] where !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            return false
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
        else { return false }
        let last = bytes[bytes.count - 1]
        return last == UInt8(ascii: "Z") || last == UInt8(ascii: "z") || bytes.count >= 25
    }

    // MARK: Grammar

    private static let base64URLTable: [Bool] = (0..<256).map { value in
        let byte = UInt8(value)
        return (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }

    static func isBase64URL(_ byte: UInt8) -> Bool {
        base64URLTable.withUnsafeBufferPointer { $0[Int(byte)] }
    }

    /// Whether `bytes[start..<end]` are all base64url characters: eight at a time while they are
    /// (a registration token is ~150 of them), then byte by byte.
    static func allBase64URL(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        var index = start
        while index + 8 <= end, allBase64URL(UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self)) {
            index += 8
        }
        return base64URLTable.withUnsafeBufferPointer { table in
            while index < end {
                guard table[Int(bytes[index])] else { return false }
                index += 1
            }
            return true
        }
    }

    /// Whether all eight bytes of `word` are base64url characters (`A-Z`, `a-z`, `0-9`, `-`, `_`).
    /// SWAR, as ``APNSValidator/allHexDigits(_:)``: for bytes below 0x80, `x + (0x80 - lo)` sets a
    /// byte's high bit when `x >= lo`, `x + (0x7F - hi)` when `x > hi`; `x | 0x20` folds `A-Z` onto `a-z`.
    @inline(__always)
    static func allBase64URL(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        guard word & highs == 0 else { return false }
        func within(_ value: UInt64, _ low: UInt64, _ high: UInt64) -> UInt64 {
            (value &+ ones &* (0x80 - low)) & ~(value &+ ones &* (0x7F - high))
        }
        let folded = word | (ones &* 0x20)
        let accepted = within(word, 0x30, 0x39) | within(folded, 0x61, 0x7A) | within(word, 0x2D, 0x2D) | within(word, 0x5F, 0x5F)
        return accepted & highs == highs
    }

    static func isTopicByte(_ byte: UInt8) -> Bool {
        isBase64URL(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "~") || byte == UInt8(ascii: "%")
    }

    static func isTopicName(_ topic: String) -> Bool {
        !topic.isEmpty && topic.utf8.count <= 900 && topic.utf8.allSatisfy(isTopicByte)
    }

    static func isHexColor(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.count == 7 && bytes[0] == UInt8(ascii: "#") && bytes[1...].allSatisfy { JSONScanner.hexValue($0) != nil }
    }

    /// `<instance id>:<token>` in base64url; strict also wants the `APA91b` prefix and a real length.
    static func isRegistrationToken(_ token: String, strict: Bool) -> Bool {
        var token = token
        return token.withUTF8 { bytes in
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, colon < bytes.count - 1 else { return false }
            guard allBase64URL(bytes, colon + 1, bytes.count), allBase64URL(bytes, 0, colon) else { return false }
            guard strict else { return true }
            let marker: StaticString = "APA91b"
            guard bytes.count >= 100, bytes.count <= 4096, bytes.count - colon - 1 >= marker.utf8CodeUnitCount else { return false }
            for offset in 0..<marker.utf8CodeUnitCount where bytes[colon + 1 + offset] != marker.utf8Start[offset] {
                return false
            }
            return true
        }
    }
}

/// `google.protobuf.Duration` text: `<seconds>[.<fraction up to 9 digits>]s`.
enum FCMDuration {
    static func seconds(_ text: String) -> Double? {
        var text = text
        return text.withUTF8(seconds)
    }

    static func seconds(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard bytes.count >= 2, bytes[bytes.count - 1] == UInt8(ascii: "s") else { return nil }
        var whole: Double = 0
        var fraction: Double = 0
        var scale: Double = 1
        var digits = 0
        var fractionDigits = -1
        for index in 0..<(bytes.count - 1) {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                guard fractionDigits < 0, digits > 0 else { return nil }
                fractionDigits = 0
                continue
            }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let value = Double(byte - UInt8(ascii: "0"))
            if fractionDigits >= 0 {
                fractionDigits += 1
                guard fractionDigits <= 9 else { return nil }
                scale /= 10
                fraction += value * scale
            } else {
                digits += 1
                guard digits <= 12 else { return nil }
                whole = whole * 10 + value
            }
        }
        guard digits > 0, fractionDigits != 0 else { return nil }
        return whole + fraction
    }
}
