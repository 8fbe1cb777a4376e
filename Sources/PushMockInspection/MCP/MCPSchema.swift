import PushMockCore

/// The JSON Schemas of the tools' inputs (the subset they use: objects of strings, integers,
/// booleans and objects), and the check of arguments against them. Arguments a schema refuses are
/// refused whole, with the field and the reason, before any call is made.
enum MCPSchema {
    /// The longest string an argument may be.
    static let maximumStringLength = 65_536

    static func object(_ properties: [(key: String, value: JSONValue)], required: [String] = []) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("type", .string("object")), ("properties", .object(properties))]
        if !required.isEmpty { members.append(("required", .array(required.map(JSONValue.string)))) }
        members.append(("additionalProperties", .bool(false)))
        return .object(members)
    }

    static func string(_ description: String, oneOf values: [String]? = nil) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("type", .string("string")), ("description", .string(description)), ("maxLength", .number(String(maximumStringLength))),
        ]
        if let values { members.append(("enum", .array(values.map(JSONValue.string)))) }
        return .object(members)
    }

    static func integer(_ description: String, minimum: Int64? = nil, maximum: Int64? = nil) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("type", .string("integer")), ("description", .string(description))]
        if let minimum { members.append(("minimum", .number(String(minimum)))) }
        if let maximum { members.append(("maximum", .number(String(maximum)))) }
        return .object(members)
    }

    static func boolean(_ description: String) -> JSONValue {
        .object([("type", .string("boolean")), ("description", .string(description))])
    }

    static func anyObject(_ description: String) -> JSONValue {
        .object([("type", .string("object")), ("description", .string(description))])
    }

    /// The inspection API's delivery filters.
    static let deliveryFilters: [(key: String, value: JSONValue)] = [
        ("service", string("apns, fcm, oauth, broadcast, iid or webpush.", oneOf: ["apns", "fcm", "oauth", "broadcast", "iid", "webpush"])),
        ("environment", string("APNs environment: sandbox or production.")),
        ("token", string("A device or registration token (case-insensitive).")),
        ("topic", string("An APNs topic, or an FCM topic or condition.")),
        ("pushType", string("apns-push-type: alert, background, liveactivity…")),
        ("project", string("An FCM project.")),
        (
            "outcome",
            string("accepted, rejected, or dropped (accepted by the service, dropped by the device).", oneOf: ["accepted", "rejected", "dropped"])
        ),
        ("reason", string("PushMock's reason: an APNs reason, an FCM error code, or a Live Activity rule.")),
        ("status", integer("The HTTP status answered.", minimum: 100, maximum: 599)),
        ("since", string("Received at or after this time (RFC 3339, or epoch milliseconds).")),
        ("until", string("Received at or before this time.")),
        ("text", string("Text in the request's headers or body.")),
        ("deviceOutcome", string("What the simulated device did: applied, dropped or none.", oneOf: ["applied", "dropped", "none"])),
        ("dropReason", string("Why the device dropped it.")),
        ("relayAgrees", boolean("Whether the relay's upstream agreed with PushMock.")),
    ]

    /// A push for check_payload and send_test_push (`POST /api/v1/check` and `/api/v1/send`).
    static let testPush: [(key: String, value: JSONValue)] = [
        ("service", string("apns, fcm or webpush.", oneOf: ["apns", "fcm", "webpush"])),
        ("token", string("APNs: the device token, or a Live Activity's push or push-to-start token (default: a new random one).")),
        ("environment", string("APNs: sandbox or production (default: the server's).", oneOf: ["sandbox", "production"])),
        (
            "headers",
            anyObject(
                "Request headers, name to value. APNs: apns-push-type, apns-topic, apns-priority, apns-expiration, apns-collapse-id, apns-id, authorization (default: a provider token signed with PushMock's key). Web Push: ttl (default 60), urgency, topic, authorization (default: VAPID signed with vapidKey)."
            )
        ),
        (
            "payload",
            anyObject(
                #"APNs: the payload, {"aps": {…}}. Web Push: the JSON message the service worker reads (default {"title": "PushMock", "body": "A test push"}), sealed with aes128gcm."#
            )
        ),
        ("project", string("FCM: the project id (default: PushMock's service account's).")),
        ("message", anyObject(#"FCM: the message, {"token": …, "notification": …, "android": …, "apns": …}."#)),
        ("validateOnly", boolean("FCM: send with validate_only.")),
        ("subscription", string("Web Push: a minted subscription's id (GET /api/v1/web-push/subscriptions; default for a send: a new one).")),
        (
            "pushService",
            string("Web Push: the push service a send mints a subscription on when none is given.", oneOf: ["apple", "mozilla", "google"])
        ),
        ("vapidKey", string("Web Push: the VAPID private key (PEM, P-256) the subscription was made with (default: a new key).")),
        (
            "body",
            string("The raw request body instead of payload or message (bytes that are not JSON, say); Web Push: text to seal instead of payload.")
        ),
    ]

    static let deliveryFilterNames = deliveryFilters.map(\.key)

    /// The query items of the arguments named `names`, as the API spells them.
    static func query(_ arguments: MCPTools.Arguments, names: [String]) -> [(String, String)] {
        names.compactMap { name in
            switch arguments[name] {
            case .string(let text)?: (name, text)
            case .number(let text)?: (name, text)
            case .bool(let flag)?: (name, flag ? "true" : "false")
            default: nil
            }
        }
    }

    /// `?a=1&b=2`, each name and value percent-encoded (nothing: "").
    static func encode(_ query: [(String, String)]) -> String {
        query.isEmpty ? "" : "?" + query.map { "\(component($0.0))=\(component($0.1))" }.joined(separator: "&")
    }

    /// `value` as one path segment.
    static func pathSegment(_ value: String) -> String { component(value) }

    private static func component(_ value: String) -> String {
        var result = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                result += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return result
    }

    /// Checks `value` against `schema` (the subset above); throws -32602 naming the field.
    static func check(_ value: JSONValue, against schema: JSONValue, at path: String) throws {
        guard case .string(let type)? = schema["type"] else { return }
        switch (type, value) {
        case ("object", .object(let members)):
            guard case .object(let properties)? = schema["properties"] else { return }
            for (key, member) in members {
                guard let property = properties.last(where: { $0.key == key })?.value else {
                    let known = properties.map(\.key).joined(separator: ", ")
                    throw MCPServer.Failure.invalidParams(
                        "\(path).\(String(key.prefix(64))) is not an argument of this tool (its arguments: \(known.isEmpty ? "none" : known))")
                }
                try check(member, against: property, at: "\(path).\(key)")
            }
            if case .array(let required)? = schema["required"] {
                for case .string(let name) in required where !members.contains(where: { $0.key == name }) {
                    throw MCPServer.Failure.invalidParams("\(path).\(name) is required")
                }
            }
        case ("string", .string(let text)):
            guard text.utf8.count <= maximumStringLength else {
                throw MCPServer.Failure.invalidParams("\(path) is \(text.utf8.count) bytes long; at most \(maximumStringLength)")
            }
            if case .array(let values)? = schema["enum"], !values.contains(value) {
                let names = values.compactMap { if case .string(let name) = $0 { name } else { nil } }
                throw MCPServer.Failure.invalidParams("\(path) must be one of \(names.joined(separator: ", ")), got \(String(text.prefix(64)))")
            }
        case ("integer", .number(let text)):
            guard let number = Int64(text) else {
                throw MCPServer.Failure.invalidParams("\(path) must be an integer, got \(String(text.prefix(64)))")
            }
            if let minimum = schema["minimum"]?.int64, number < minimum {
                throw MCPServer.Failure.invalidParams("\(path) must be at least \(minimum), got \(number)")
            }
            if let maximum = schema["maximum"]?.int64, number > maximum {
                throw MCPServer.Failure.invalidParams("\(path) must be at most \(maximum), got \(number)")
            }
        case ("boolean", .bool):
            break
        default:
            throw MCPServer.Failure.invalidParams("\(path) must be \(type == "integer" ? "an" : "a") \(type), got \(kind(of: value))")
        }
    }

    static func kind(of value: JSONValue) -> String {
        switch value {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }
}
