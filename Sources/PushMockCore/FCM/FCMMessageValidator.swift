/// Validates a `messages:send` body like FCM (fcm.md §2–§4, §7): proto3 JSON with snake_case or
/// lowerCamelCase names, last duplicate key wins, unknown names and wrong types refused with Google's
/// texts, exactly one target, target grammar, data rules, Android/Webpush/APNs options, sizes and
/// the Live Activity message rules. Works on bytes with ``JSONScanner``; no Foundation.
public struct FCMMessageValidator: Sendable {
    /// Require registration tokens shaped like real ones (`<instance id>:APA91b…`); when false any
    /// `<a>:<b>` of base64url characters passes.
    public var strictRegistrationTokens: Bool
    /// The limit on `data` plus `notification` (fcm.md §3: 4096).
    public var maxMessagePayloadSize: Int

    public init(strictRegistrationTokens: Bool = true, maxMessagePayloadSize: Int = 4096) {
        self.strictRegistrationTokens = strictRegistrationTokens
        self.maxMessagePayloadSize = maxMessagePayloadSize
    }

    /// Validates `body`.
    public func validate(_ body: [UInt8]) throws(GoogleError) -> FCMSendResult {
        try body.withUnsafeBufferPointer { bytes throws(GoogleError) -> FCMSendResult in
            let scanner = JSONScanner(bytes)
            guard let root = scanner.root else {
                throw GoogleError(code: 400, message: "Invalid JSON payload received. Unexpected token.", status: "INVALID_ARGUMENT", details: [
                    .badRequest([.init(field: "", description: "Invalid JSON payload received. Unexpected token.")]),
                ])
            }
            var walker = FCMWalker(scanner: scanner, validator: self)
            return try walker.request(root)
        }
    }
}

/// One validation pass over a request body.
struct FCMWalker {
    let scanner: JSONScanner
    let validator: FCMMessageValidator
    var result = FCMSendResult()

    init(scanner: JSONScanner, validator: FCMMessageValidator) {
        self.scanner = scanner
        self.validator = validator
    }

    // MARK: Structure

    /// An object's members resolved to schema field names, last duplicate winning, nulls dropped.
    func members(of object: JSONScanner.Value, schema: FCMSchema, path: String) throws(GoogleError) -> [(name: String, value: JSONScanner.Value)] {
        guard object.kind == .object else {
            throw typeError(path: path, type: "type.googleapis.com/\(schema.name)", value: object)
        }
        var result: [(name: String, value: JSONScanner.Value)] = []
        var failure: GoogleError?
        scanner.forEachMember(of: object) { keyRange, value in
            guard failure == nil else { return }
            let key = scanner.keys(ofRange: keyRange)
            guard let name = schema.fieldName(for: key) else {
                let message = path.isEmpty
                    ? "Invalid JSON payload received. Unknown name \"\(key)\": Cannot find field."
                    : "Invalid JSON payload received. Unknown name \"\(key)\" at '\(path)': Cannot find field."
                failure = GoogleError(code: 400, message: message, status: "INVALID_ARGUMENT", details: [.badRequest([.init(field: path, description: message)])])
                return
            }
            result.removeAll { $0.name == name }
            if value.kind != .null {
                result.append((name, value))
            }
        }
        if let failure { throw failure }
        return result
    }

    func typeError(path: String, type: String, value: JSONScanner.Value) -> GoogleError {
        let message = "Invalid value at '\(path)' (\(type)), \(scanner.text(of: value))"
        return GoogleError(code: 400, message: message, status: "INVALID_ARGUMENT", details: [.badRequest([.init(field: path, description: message)])])
    }

    /// Checks `value` against `type` recursively (structure only).
    func check(_ value: JSONScanner.Value, _ type: FCMSchema.FieldType, path: String) throws(GoogleError) {
        switch type {
        case .string:
            guard value.kind == .string else { throw typeError(path: path, type: "TYPE_STRING", value: value) }
        case .bool:
            guard value.kind == .bool else { throw typeError(path: path, type: "TYPE_BOOL", value: value) }
        case .int32:
            let parsed = value.kind == .number ? scanner.int64(at: value) : scanner.string(at: value).flatMap { Int64($0) }
            guard let number = parsed, number >= Int64(Int32.min), number <= Int64(Int32.max) else {
                throw typeError(path: path, type: "TYPE_INT32", value: value)
            }
        case .float:
            guard value.kind == .number else { throw typeError(path: path, type: "TYPE_FLOAT", value: value) }
        case .duration:
            guard value.kind == .string, let text = scanner.string(at: value), FCMDuration.seconds(text) != nil else {
                let field = path.split(separator: ".").last.map(String.init) ?? path
                let message = "Invalid value at '\(path)' (type.googleapis.com/google.protobuf.Duration), Field '\(FCMWalker.camel(field))', Illegal duration format"
                throw GoogleError(code: 400, message: message, status: "INVALID_ARGUMENT", details: [.badRequest([.init(field: path, description: message)])])
            }
        case .timestamp:
            guard value.kind == .string, let text = scanner.string(at: value), FCMWalker.isRFC3339(text) else {
                throw typeError(path: path, type: "type.googleapis.com/google.protobuf.Timestamp", value: value)
            }
        case .enumeration(let allowed):
            guard value.kind == .string, let text = scanner.string(at: value), allowed.contains(text) else {
                throw typeError(path: path, type: "TYPE_ENUM", value: value)
            }
        case .stringMap:
            guard value.kind == .object else { throw typeError(path: path, type: "type.googleapis.com/google.protobuf.Struct", value: value) }
            var index = 0
            var failure: GoogleError?
            scanner.forEachMember(of: value) { _, entry in
                if failure == nil, entry.kind != .string {
                    failure = typeError(path: "\(path)[\(index)].value", type: "TYPE_STRING", value: entry)
                }
                index += 1
            }
            if let failure { throw failure }
        case .message(let schema):
            for (name, member) in try members(of: value, schema: schema, path: path) {
                try check(member, schema.fields[name]!, path: "\(path).\(name)")
            }
        case .repeatedString, .repeatedDuration:
            guard value.kind == .array else { throw typeError(path: path, type: "TYPE_STRING", value: value) }
            for (index, element) in scanner.elements(of: value).enumerated() {
                if case .repeatedString = type {
                    try check(element, .string, path: "\(path)[\(index)]")
                } else {
                    try check(element, .duration, path: "\(path)[\(index)]")
                }
            }
        case .freeObject:
            guard value.kind == .object else { throw typeError(path: path, type: "type.googleapis.com/google.protobuf.Struct", value: value) }
        }
    }

    // MARK: Request and message

    mutating func request(_ root: JSONScanner.Value) throws(GoogleError) -> FCMSendResult {
        var message: JSONScanner.Value?
        for (name, value) in try members(of: root, schema: .request, path: "") {
            try check(value, FCMSchema.request.fields[name]!, path: name)
            if name == "message" { message = value }
            if name == "validate_only" { result.validateOnly = scanner.bool(at: value) ?? false }
        }
        guard let message else {
            throw GoogleError.invalidArgument("Recipient of the message is not set.", field: "message")
        }
        try self.message(message)
        return result
    }

    mutating func message(_ message: JSONScanner.Value) throws(GoogleError) {
        let fields = Dictionary(try members(of: message, schema: .message, path: "message").map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        // Targets: proto oneof, in Google's order of appearance.
        var target: FCMSendResult.Target?
        for name in ["token", "topic", "condition", "fid"] {
            guard let value = fields[name], let text = scanner.string(at: value) else { continue }
            if let target {
                let message = "Invalid value at 'message' (oneof), oneof field 'target' is already set. Cannot set '\(name)'"
                _ = target
                throw GoogleError(code: 400, message: message, status: "INVALID_ARGUMENT", details: [.badRequest([.init(field: "message", description: message)])])
            }
            switch name {
            case "token": target = .token(text)
            case "topic": target = .topic(text)
            case "condition": target = .condition(text)
            default: target = .fid(text)
            }
        }
        if let data = fields["data"] { try check(data, .stringMap, path: "message.data") }
        if let notification = fields["notification"] { try check(notification, .message(.notification), path: "message.notification") }
        if let android = fields["android"] { try check(android, .message(.android), path: "message.android") }
        if let webpush = fields["webpush"] { try check(webpush, .message(.webpush), path: "message.webpush") }
        if let apns = fields["apns"] { try check(apns, .message(.apns), path: "message.apns") }
        if let options = fields["fcm_options"] { try check(options, .message(.fcmOptions), path: "message.fcm_options") }
        if let name = fields["name"] { try check(name, .string, path: "message.name") }

        // Live Activity messages (fcm.md §7 and PushMock's product rule).
        if let apns = fields["apns"], let token = field(apns, "live_activity_token", "liveActivityToken").flatMap(scanner.string(at:)) {
            result.liveActivityToken = token
            guard case .token = target else {
                if target == nil {
                    throw GoogleError.invalidArgument("Recipient of the message is not set.", field: "message")
                }
                throw GoogleError.invalidArgument("A Live Activity message (apns.live_activity_token) must target a registration token, not a \(target!.kind).", field: "message.\(target!.kind)")
            }
            for name in ["notification", "data"] {
                if let value = fields[name], !isEmptyObject(value) {
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
        if let data = fields["data"] { try checkData(data, path: "message.data") }
        if let android = fields["android"] { try checkAndroid(android) }
        if let webpush = fields["webpush"] { try checkWebpush(webpush) }
        if let apns = fields["apns"] { try checkAPNS(apns) }
        if let options = fields["fcm_options"], let label = field(options, "analytics_label", "analyticsLabel").flatMap(scanner.string(at:)) {
            try checkAnalyticsLabel(label, path: "message.fcm_options.analytics_label")
        }
        var size = 0
        if let data = fields["data"] {
            scanner.forEachMember(of: data) { key, value in size += key.count + value.range.count - 2 }
        }
        if let notification = fields["notification"] { size += notification.range.count }
        if size > validator.maxMessagePayloadSize {
            throw GoogleError(code: 400, message: "Request contains an invalid argument.", status: "INVALID_ARGUMENT", details: [
                .fcmError(.invalidArgument),
                .badRequest([.init(field: "message", description: "data and notification are \(size) bytes; the limit is \(validator.maxMessagePayloadSize)")]),
            ])
        }
    }

    /// The member `snake` or `camel` of an object, last one winning.
    func field(_ object: JSONScanner.Value, _ snake: String, _ camel: String) -> JSONScanner.Value? {
        var found: JSONScanner.Value?
        scanner.forEachMember(of: object) { key, value in
            let name = scanner.keys(ofRange: key)
            if name == snake || name == camel { found = value.kind == .null ? nil : value }
        }
        return found
    }

    func isEmptyObject(_ value: JSONScanner.Value) -> Bool {
        value.kind == .object && scanner.keys(of: value).isEmpty
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
        // 2026-01-01T00:00:00Z or with a fraction and/or an offset.
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
