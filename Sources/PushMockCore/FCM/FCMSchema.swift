/// The FCM HTTP v1 message schema (fcm.md §3), as proto3 JSON sees it: field names in snake_case
/// (lowerCamelCase is accepted too) and their types.
public struct FCMSchema: Sendable {
    /// A field's type.
    public indirect enum FieldType: Sendable {
        case string
        case bool
        case int32
        case float
        /// A `google.protobuf.Duration` string such as `"3.5s"`.
        case duration
        /// An RFC 3339 timestamp string.
        case timestamp
        /// An enum, with its accepted spellings.
        case enumeration(Set<String>)
        /// `map<string,string>`.
        case stringMap
        case message(FCMSchema)
        case repeatedString
        case repeatedDuration
        /// A free JSON object (`apns.payload`, `webpush.notification`).
        case freeObject
    }

    /// The proto message name (for `Invalid value at … (type.googleapis.com/…)` texts).
    public let name: String
    /// Fields by snake_case name (a short list: scanned, not hashed).
    public let fields: [(name: String, type: FieldType)]
    /// The field names' bytes back to back, and where each one is: compared without retaining.
    private let nameBytes: [UInt8]
    private let nameSpans: [(start: Int, count: Int)]

    init(_ name: String, _ fields: KeyValuePairs<String, FieldType>) {
        self.name = name
        self.fields = fields.map { ($0.key, $0.value) }
        var bytes: [UInt8] = []
        var spans: [(Int, Int)] = []
        for field in fields {
            spans.append((bytes.count, field.key.utf8.count))
            bytes += field.key.utf8
        }
        self.nameBytes = bytes
        self.nameSpans = spans
    }

    /// The index of the field a JSON key stands for (`validateOnly` → `validate_only`), if any.
    func fieldIndex(forKey key: Int, in tape: JSONTape) -> Int? {
        let range = tape.value(key).range
        let start = range.lowerBound + 1
        let count = range.count - 2
        let found: Int? = nameBytes.withUnsafeBufferPointer { names in
            let source = tape.scanner.bytes
            outer: for (index, span) in nameSpans.enumerated() where span.count == count {
                for offset in 0..<count where names[span.start + offset] != source[start + offset] {
                    continue outer
                }
                return index
            }
            return nil
        }
        if let found { return found }
        // Escaped keys (`"to\u006ben"`) and lowerCamelCase names take the slow path.
        let text = tape.keyText(key)
        if let exact = fields.firstIndex(where: { $0.name == text }) { return exact }
        guard text.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return nil }
        var snake = ""
        for character in text.unicodeScalars {
            if character.properties.isUppercase {
                snake += "_" + String(character).lowercased()
            } else {
                snake.unicodeScalars.append(character)
            }
        }
        return fields.firstIndex { $0.name == snake }
    }

    /// The type of the field `name` (snake_case).
    func type(of name: String) -> FieldType? {
        fields.first { $0.name == name }?.type
    }

    static let fcmOptions = FCMSchema("google.firebase.fcm.v1.FcmOptions", ["analytics_label": .string])
    static let notification = FCMSchema("google.firebase.fcm.v1.Notification", ["title": .string, "body": .string, "image": .string])
    static let color = FCMSchema("google.type.Color", ["red": .float, "green": .float, "blue": .float, "alpha": .float])
    static let lightSettings = FCMSchema("google.firebase.fcm.v1.LightSettings", [
        "color": .message(color), "light_on_duration": .duration, "light_off_duration": .duration,
    ])
    static let androidNotification = FCMSchema("google.firebase.fcm.v1.AndroidNotification", [
        "title": .string, "body": .string, "icon": .string, "color": .string, "sound": .string, "tag": .string,
        "click_action": .string, "body_loc_key": .string, "body_loc_args": .repeatedString, "title_loc_key": .string,
        "title_loc_args": .repeatedString, "channel_id": .string, "ticker": .string, "sticky": .bool, "event_time": .timestamp,
        "local_only": .bool,
        "notification_priority": .enumeration(["PRIORITY_UNSPECIFIED", "PRIORITY_MIN", "PRIORITY_LOW", "PRIORITY_DEFAULT", "PRIORITY_HIGH", "PRIORITY_MAX"]),
        "default_sound": .bool, "default_vibrate_timings": .bool, "default_light_settings": .bool, "vibrate_timings": .repeatedDuration,
        "visibility": .enumeration(["VISIBILITY_UNSPECIFIED", "PRIVATE", "PUBLIC", "SECRET"]), "notification_count": .int32,
        "light_settings": .message(lightSettings), "image": .string,
        "proxy": .enumeration(["PROXY_UNSPECIFIED", "ALLOW", "DENY", "IF_PRIORITY_LOWERED"]), "bypass_proxy_notification": .bool,
    ])
    static let androidFCMOptions = FCMSchema("google.firebase.fcm.v1.AndroidFcmOptions", ["analytics_label": .string])
    static let android = FCMSchema("google.firebase.fcm.v1.AndroidConfig", [
        "collapse_key": .string, "priority": .enumeration(["NORMAL", "HIGH", "normal", "high"]), "ttl": .duration,
        "restricted_package_name": .string, "data": .stringMap, "notification": .message(androidNotification),
        "fcm_options": .message(androidFCMOptions), "direct_boot_ok": .bool, "bandwidth_constrained_ok": .bool,
        "restricted_satellite_ok": .bool,
    ])
    static let webpushFCMOptions = FCMSchema("google.firebase.fcm.v1.WebpushFcmOptions", ["link": .string, "analytics_label": .string])
    static let webpush = FCMSchema("google.firebase.fcm.v1.WebpushConfig", [
        "headers": .stringMap, "data": .stringMap, "notification": .freeObject, "fcm_options": .message(webpushFCMOptions),
    ])
    static let apnsFCMOptions = FCMSchema("google.firebase.fcm.v1.ApnsFcmOptions", ["analytics_label": .string, "image": .string])
    static let apns = FCMSchema("google.firebase.fcm.v1.ApnsConfig", [
        "headers": .stringMap, "payload": .freeObject, "fcm_options": .message(apnsFCMOptions), "live_activity_token": .string,
    ])
    static let message = FCMSchema("google.firebase.fcm.v1.Message", [
        "name": .string, "data": .stringMap, "notification": .message(notification), "android": .message(android),
        "webpush": .message(webpush), "apns": .message(apns), "fcm_options": .message(fcmOptions),
        "token": .string, "topic": .string, "condition": .string, "fid": .string,
    ])
    static let request = FCMSchema("google.firebase.fcm.v1.SendMessageRequest", ["message": .message(message), "validate_only": .bool])
}
