/// Validates a `messages:send` body like FCM (fcm.md §2–§4, §7): proto3 JSON with snake_case or
/// lowerCamelCase names, last duplicate key wins, unknown names and wrong types refused with Google's
/// texts, exactly one target, target grammar, data rules, Android/Webpush/APNs options, sizes and
/// the Live Activity message rules. Parses once into a ``JSONTape``; no Foundation.
public struct FCMMessageValidator: Sendable {
    /// Require registration tokens shaped like real ones (`<instance id>:APA91b…`); when false any
    /// `<a>:<b>` of base64url characters passes.
    public var strictRegistrationTokens: Bool
    /// The limit on `data` plus `notification` (fcm.md §3: 4096).
    public var maxMessagePayloadSize: Int
    /// The Live Activity rules for `apns.payload.aps` of Live Activity messages.
    public var liveActivity: LiveActivityOptions
    /// Declared `ActivityAttributes` types (checked as on `/3/device`).
    public let activityTypes: ActivityTypeRegistry

    public init(
        strictRegistrationTokens: Bool = true, maxMessagePayloadSize: Int = 4096, liveActivity: LiveActivityOptions = .init(),
        activityTypes: ActivityTypeRegistry = ActivityTypeRegistry()
    ) {
        self.strictRegistrationTokens = strictRegistrationTokens
        self.maxMessagePayloadSize = maxMessagePayloadSize
        self.liveActivity = liveActivity
        self.activityTypes = activityTypes
    }

    /// Whether `token` is a registration token this validator accepts as a `message.token`.
    public func isRegistrationToken(_ token: String) -> Bool {
        FCMWalker.isRegistrationToken(token, strict: strictRegistrationTokens)
    }

    /// Whether all eight bytes of `word` are base64url characters (the registration token check's step).
    package static func allBase64URL(_ word: UInt64) -> Bool {
        FCMWalker.allBase64URL(word)
    }

    /// Whether `name` is a topic name FCM accepts (`[a-zA-Z0-9-_.~%]{1,900}`, no `/topics/` prefix).
    public static func isTopicName(_ name: String) -> Bool {
        FCMWalker.isTopicName(name)
    }

    /// Validates `body` at `now` (seconds since the epoch; Live Activity timestamps are judged against it).
    public func validate(_ body: [UInt8], now: PushInstant = .epoch) throws(GoogleError) -> FCMSendResult {
        try body.withUnsafeBufferPointer { bytes throws(GoogleError) -> FCMSendResult in
            guard let tape = JSONTape(JSONScanner(bytes)) else {
                throw GoogleError(code: 400, message: "Invalid JSON payload received. Unexpected token.", status: "INVALID_ARGUMENT", details: [
                    .badRequest([.init(field: "", description: "Invalid JSON payload received. Unexpected token.")]),
                ])
            }
            let walker = FCMWalker(tape: tape, validator: self)
            walker.now = now
            return try walker.request()
        }
    }
}

/// One validation pass over a request body's tape (a class: closures share it instead of copying it).
/// It lives for one `validate` call on one thread, and no access to its fields overlaps another, so
/// they skip the runtime's exclusivity checks.
final class FCMWalker {
    let tape: JSONTape
    let validator: FCMMessageValidator
    @exclusivity(unchecked) var result = FCMSendResult()
    @exclusivity(unchecked) var now = PushInstant.epoch
    /// The tape index of `apns.payload`.
    @exclusivity(unchecked) var apnsPayload: Int?

    init(tape: JSONTape, validator: FCMMessageValidator) {
        self.tape = tape
        self.validator = validator
    }

    // MARK: Structure

    static func join(_ parent: String, _ name: String) -> String {
        parent.isEmpty ? name : parent + "." + name
    }

    func typeError(path: String, type: String, value: Int) -> GoogleError {
        let message = "Invalid value at '\(path)' (\(type)), \(tape.text(value))"
        return GoogleError(code: 400, message: message, status: "INVALID_ARGUMENT", details: [.badRequest([.init(field: path, description: message)])])
    }

    /// An object's fields: each member resolved to its schema field (unknown names refused), nulls
    /// skipped, calling `body` in document order (a later duplicate simply comes later).
    func forEachField(of object: Int, schema: FCMSchema, path: String, _ body: (String, FCMSchema.FieldType, Int) throws(GoogleError) -> Void) throws(GoogleError) {
        guard tape.kind(object) == .object else {
            throw typeError(path: path, type: "type.googleapis.com/\(schema.name)", value: object)
        }
        var child = object + 1
        let end = tape.entries[object].end
        while child < end {
            let value = child + 1
            guard let index = schema.fieldIndex(forKey: child, in: tape) else {
                let key = tape.keyText(child)
                let message = path.isEmpty
                    ? "Invalid JSON payload received. Unknown name \"\(key)\": Cannot find field."
                    : "Invalid JSON payload received. Unknown name \"\(key)\" at '\(path)': Cannot find field."
                throw GoogleError(code: 400, message: message, status: "INVALID_ARGUMENT", details: [.badRequest([.init(field: path, description: message)])])
            }
            if tape.kind(value) != .null {
                let field = schema.fields[index]
                try body(field.name, field.type, value)
            }
            child = tape.entries[value].end
        }
    }

    /// Checks `value` against `type` recursively (structure only). `parent` + `name` is its path,
    /// joined only when needed.
    func check(_ value: Int, _ type: FCMSchema.FieldType, parent: String, name: String) throws(GoogleError) {
        switch type {
        case .string:
            guard tape.kind(value) == .string else { throw typeError(path: Self.join(parent, name), type: "TYPE_STRING", value: value) }
        case .bool:
            guard tape.kind(value) == .bool else { throw typeError(path: Self.join(parent, name), type: "TYPE_BOOL", value: value) }
        case .int32:
            let parsed = tape.kind(value) == .number ? tape.int64(value) : tape.string(value).flatMap { Int64($0) }
            guard let number = parsed, number >= Int64(Int32.min), number <= Int64(Int32.max) else {
                throw typeError(path: Self.join(parent, name), type: "TYPE_INT32", value: value)
            }
        case .float:
            guard tape.kind(value) == .number else { throw typeError(path: Self.join(parent, name), type: "TYPE_FLOAT", value: value) }
        case .duration:
            guard tape.kind(value) == .string, let text = tape.string(value), FCMDuration.seconds(text) != nil else {
                let path = Self.join(parent, name)
                let message = "Invalid value at '\(path)' (type.googleapis.com/google.protobuf.Duration), Field '\(FCMWalker.camel(name))', Illegal duration format"
                throw GoogleError(code: 400, message: message, status: "INVALID_ARGUMENT", details: [.badRequest([.init(field: path, description: message)])])
            }
        case .timestamp:
            guard tape.kind(value) == .string, let text = tape.string(value), FCMWalker.isRFC3339(text) else {
                throw typeError(path: Self.join(parent, name), type: "type.googleapis.com/google.protobuf.Timestamp", value: value)
            }
        case .enumeration(let allowed):
            guard tape.kind(value) == .string, let text = tape.string(value), allowed.contains(text) else {
                throw typeError(path: Self.join(parent, name), type: "TYPE_ENUM", value: value)
            }
        case .stringMap:
            guard tape.kind(value) == .object else { throw typeError(path: Self.join(parent, name), type: "type.googleapis.com/google.protobuf.Struct", value: value) }
            var index = 0
            var failure: GoogleError?
            tape.forEachMember(of: value) { _, entry in
                if failure == nil, tape.kind(entry) != .string {
                    failure = typeError(path: "\(Self.join(parent, name))[\(index)].value", type: "TYPE_STRING", value: entry)
                }
                index += 1
            }
            if let failure { throw failure }
        case .message(let schema):
            let path = Self.join(parent, name)
            try forEachField(of: value, schema: schema, path: path) { (name, type, member) throws(GoogleError) in
                try check(member, type, parent: path, name: name)
            }
        case .repeatedString, .repeatedDuration:
            guard tape.kind(value) == .array else { throw typeError(path: Self.join(parent, name), type: "TYPE_STRING", value: value) }
            var failure: GoogleError?
            let elementType: FCMSchema.FieldType = if case .repeatedString = type { .string } else { .duration }
            tape.forEachElement(of: value) { position, element in
                guard failure == nil else { return }
                do throws(GoogleError) {
                    try check(element, elementType, parent: parent, name: "\(name)[\(position)]")
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
        case .freeObject:
            guard tape.kind(value) == .object else { throw typeError(path: Self.join(parent, name), type: "type.googleapis.com/google.protobuf.Struct", value: value) }
        }
    }

    // MARK: Request and message

    func request() throws(GoogleError) -> FCMSendResult {
        var message: Int?
        var validateOnly = false
        try forEachField(of: tape.root, schema: .request, path: "") { (name, type, value) throws(GoogleError) in
            if name == "message" {
                message = value
            } else {
                try check(value, type, parent: "", name: name)
                validateOnly = tape.bool(value) ?? false
            }
        }
        result.validateOnly = validateOnly
        guard let message else {
            throw GoogleError.invalidArgument("Recipient of the message is not set.", field: "message")
        }
        try self.message(message)
        return result
    }

    /// The last occurrence of each message field (proto3 JSON: the last duplicate wins).
    struct MessageFields {
        var token, topic, condition, fid, data, notification, android, webpush, apns, fcmOptions: Int?
        var targets: [(String, Int)] = []
    }

    func message(_ message: Int) throws(GoogleError) {
        var fields = MessageFields()
        try forEachField(of: message, schema: .message, path: "message") { (name, type, value) throws(GoogleError) in
            try check(value, type, parent: "message", name: name)
            switch name {
            case "token", "topic", "condition", "fid":
                fields.targets.removeAll { $0.0 == name }
                fields.targets.append((name, value))
                switch name {
                case "token": fields.token = value
                case "topic": fields.topic = value
                case "condition": fields.condition = value
                default: fields.fid = value
                }
            case "data": fields.data = value
            case "notification": fields.notification = value
            case "android": fields.android = value
            case "webpush": fields.webpush = value
            case "apns": fields.apns = value
            case "fcm_options": fields.fcmOptions = value
            default: break
            }
        }
        // Targets: a proto oneof.
        if fields.targets.count > 1 {
            let message = "Invalid value at 'message' (oneof), oneof field 'target' is already set. Cannot set '\(fields.targets[1].0)'"
            throw GoogleError(code: 400, message: message, status: "INVALID_ARGUMENT", details: [.badRequest([.init(field: "message", description: message)])])
        }
        var target: FCMSendResult.Target?
        if let (name, value) = fields.targets.first, let text = tape.string(value) {
            switch name {
            case "token": target = .token(text)
            case "topic": target = .topic(text)
            case "condition": target = .condition(text)
            default: target = .fid(text)
            }
        }
        // Live Activity messages (fcm.md §7 and PushMock's product rule).
        if let apns = fields.apns, let token = field(apns, "live_activity_token", "liveActivityToken").flatMap(tape.string) {
            result.liveActivityToken = token
            guard case .token = target else {
                guard let target else {
                    throw GoogleError.invalidArgument("Recipient of the message is not set.", field: "message")
                }
                throw GoogleError.invalidArgument("A Live Activity message (apns.live_activity_token) must target a registration token, not a \(target.kind).", field: "message.\(target.kind)")
            }
            for (name, value) in [("notification", fields.notification), ("data", fields.data)] {
                if let value, tape.memberCount(of: value) > 0 {
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
        if let data = fields.data { try checkData(data, path: "message.data") }
        if let android = fields.android { try checkAndroid(android) }
        if let webpush = fields.webpush { try checkWebpush(webpush) }
        if let apns = fields.apns { try checkAPNS(apns) }
        if result.isLiveActivity {
            try checkLiveActivityPayload()
        }
        if let options = fields.fcmOptions, let label = field(options, "analytics_label", "analyticsLabel").flatMap(tape.string) {
            try checkAnalyticsLabel(label, path: "message.fcm_options.analytics_label")
        }
        var size = 0
        if let data = fields.data {
            tape.forEachMember(of: data) { key, value in size += tape.value(key).range.count + tape.value(value).range.count - 4 }
        }
        if let notification = fields.notification { size += tape.value(notification).range.count }
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

    /// The member `snake` or `camel` of an object, last one winning, nulls skipped.
    func field(_ object: Int, _ snake: String, _ camel: String) -> Int? {
        var found: Int?
        tape.forEachMember(of: object) { key, value in
            if tape.key(key, is: snake) || (camel != snake && tape.key(key, is: camel)) {
                found = tape.kind(value) == .null ? nil : value
            }
        }
        return found
    }

    static func camel(_ snake: String) -> String {
        var out = ""
        var upper = false
        for character in snake {
            if character == "_" { upper = true; continue }
            out.append(upper ? Character(character.uppercased()) : character)
            upper = false
        }
        return out
    }

    static func isRFC3339(_ text: String) -> Bool {
        // 2026-01-01T00:00:00Z, with an optional fraction and/or an offset.
        let bytes = Array(text.utf8)
        guard bytes.count >= 20 else { return false }
        let digits = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
        for index in digits where !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { return false }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
        else { return false }
        let last = bytes[bytes.count - 1]
        return last == UInt8(ascii: "Z") || last == UInt8(ascii: "z") || bytes.count >= 25
    }
}
