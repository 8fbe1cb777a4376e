/// The FCM rules beyond structure (fcm.md §3, §4, §6). Texts are Google's where known; where
/// fcm.md §12 lists them as unknown, PushMock words them in Google's style (README).
extension FCMWalker {
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

    func checkData(_ data: Int, path: String) throws(GoogleError) {
        var failure: GoogleError?
        tape.forEachMember(of: data) { keyIndex, _ in
            guard failure == nil else { return }
            let key = tape.keyText(keyIndex)
            if key == "from" || key == "message_type" || key.hasPrefix("google.") || key.hasPrefix("gcm.notification.") {
                failure = GoogleError.invalidArgument("Invalid data payload key: \(key)", field: path)
            }
        }
        if let failure { throw failure }
    }

    func checkAndroid(_ android: Int) throws(GoogleError) {
        if let ttl = field(android, "ttl", "ttl").flatMap(tape.string), let seconds = FCMDuration.seconds(ttl), seconds > 2_419_200 {
            throw GoogleError.invalidArgument("The TTL must be between 0 and 2419200 seconds (4 weeks), got \(ttl)", field: "message.android.ttl")
        }
        if let data = field(android, "data", "data") { try checkData(data, path: "message.android.data") }
        if let options = field(android, "fcm_options", "fcmOptions"), let label = field(options, "analytics_label", "analyticsLabel").flatMap(tape.string) {
            try checkAnalyticsLabel(label, path: "message.android.fcm_options.analytics_label")
        }
        guard let notification = field(android, "notification", "notification") else { return }
        if let color = field(notification, "color", "color").flatMap(tape.string), !Self.isHexColor(color) {
            throw GoogleError.invalidArgument("Invalid color: \(color); expected #rrggbb", field: "message.android.notification.color")
        }
        for (args, key) in [("body_loc_args", "body_loc_key"), ("title_loc_args", "title_loc_key")] {
            if field(notification, args, Self.camel(args)) != nil, field(notification, key, Self.camel(key)) == nil {
                throw GoogleError.invalidArgument("\(args) requires \(key)", field: "message.android.notification.\(args)")
            }
        }
        if let settings = field(notification, "light_settings", "lightSettings") {
            for name in ["color", "light_on_duration", "light_off_duration"] where field(settings, name, Self.camel(name)) == nil {
                throw GoogleError.invalidArgument("light_settings.\(name) is required", field: "message.android.notification.light_settings.\(name)")
            }
        }
    }

    func checkWebpush(_ webpush: Int) throws(GoogleError) {
        if let data = field(webpush, "data", "data") { try checkData(data, path: "message.webpush.data") }
        guard let options = field(webpush, "fcm_options", "fcmOptions") else { return }
        if let link = field(options, "link", "link").flatMap(tape.string), !link.lowercased().hasPrefix("https://") {
            throw GoogleError.invalidArgument("The link must be an HTTPS URL, got \(link)", field: "message.webpush.fcm_options.link")
        }
        if let label = field(options, "analytics_label", "analyticsLabel").flatMap(tape.string) {
            try checkAnalyticsLabel(label, path: "message.webpush.fcm_options.analytics_label")
        }
    }

    func checkAPNS(_ apns: Int) throws(GoogleError) {
        if let headers = field(apns, "headers", "headers") {
            var failure: GoogleError?
            var pushType: String?
            var topic: String?
            var priority: String?
            tape.forEachMember(of: headers) { keyIndex, value in
                guard failure == nil, let text = tape.string(value) else { return }
                switch tape.keyText(keyIndex).lowercased() {
                case "apns-priority":
                    priority = text
                    if !["1", "5", "10"].contains(text) {
                        failure = GoogleError.invalidArgument("Invalid apns-priority: \(text); expected 10, 5 or 1", field: "message.apns.headers")
                    }
                case "apns-expiration":
                    if Int64(text) == nil {
                        failure = GoogleError.invalidArgument("Invalid apns-expiration: \(text); expected UNIX seconds", field: "message.apns.headers")
                    }
                case "apns-collapse-id":
                    if text.utf8.count > 64 {
                        failure = GoogleError.invalidArgument("The length of [apns-collapse-id] header must not exceed [64] bytes.", field: "message.apns.headers")
                    }
                case "apns-push-type":
                    pushType = text
                    if APNSPushType(wire: text.lowercased()) == nil {
                        failure = GoogleError.invalidArgument("Invalid apns-push-type: \(text)", field: "message.apns.headers")
                    }
                case "apns-topic":
                    topic = text
                default:
                    break
                }
            }
            if let failure { throw failure }
            result.apnsPushType = pushType
            result.apnsTopic = topic
            result.apnsPriority = priority
        }
        if let payload = field(apns, "payload", "payload") {
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
        if let options = field(apns, "fcm_options", "fcmOptions"), let label = field(options, "analytics_label", "analyticsLabel").flatMap(tape.string) {
            try checkAnalyticsLabel(label, path: "message.apns.fcm_options.analytics_label")
        }
        if result.isLiveActivity, let pushType = result.apnsPushType, pushType.lowercased() != "liveactivity" {
            throw GoogleError.invalidArgument("A Live Activity message needs apns-push-type liveactivity (or none), got \(pushType)", field: "message.apns.headers")
        }
    }

    func checkAnalyticsLabel(_ label: String, path: String) throws(GoogleError) {
        guard !label.isEmpty, label.utf8.count <= 50, label.utf8.allSatisfy(Self.isTopicByte) else {
            throw GoogleError.invalidArgument("Analytics label must match [a-zA-Z0-9-_.~%]{1,50}, got \"\(label)\"", field: path)
        }
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

    static func isHexColor(_ color: String) -> Bool {
        let bytes = Array(color.utf8)
        return bytes.count == 7 && bytes[0] == UInt8(ascii: "#") && bytes[1...].allSatisfy { JSONScanner.hexValue($0) != nil }
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
        return text.withUTF8 { bytes -> Double? in
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
}
