public import PushMockCore

extension Delivery {
    /// The first value of header `name` (lower-case).
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    /// The body parsed as JSON, if it is.
    public var json: JSONValue? { JSONValue.parse(body) }

    /// The APNs payload (APNs deliveries, and the `apns.payload` of an FCM message).
    public var apnsPayload: APNSPayloadView? {
        switch service {
        case .apns, .broadcast:
            return json.map(APNSPayloadView.init)
        case .fcm:
            return fcmMessage?.apnsPayload
        default:
            return nil
        }
    }

    /// The FCM message (`message` of the request body).
    public var fcmMessage: FCMMessageView? {
        guard service == .fcm, let message = json?["message"] else { return nil }
        return FCMMessageView(json: message)
    }
}

/// Typed access to an APNs payload.
public struct APNSPayloadView: Sendable, Hashable {
    /// The whole payload.
    public let json: JSONValue

    /// The `aps` dictionary.
    public var aps: JSONValue? { json["aps"] }
    /// `aps.alert` as a string, or `aps.alert.body`.
    public var alertBody: String? {
        if case .string(let text)? = aps?["alert"] { return text }
        return aps?["alert"]?["body"]?.stringValue
    }
    /// `aps.alert.title`.
    public var alertTitle: String? { aps?["alert"]?["title"]?.stringValue }
    /// `aps.event` (Live Activities).
    public var event: String? { aps?["event"]?.stringValue }
    /// `aps.timestamp` (Live Activities).
    public var timestamp: Int64? { aps?["timestamp"]?.int64Value }
    /// `aps.content-state` (Live Activities).
    public var contentState: JSONValue? { aps?["content-state"] }
    /// `aps.badge`.
    public var badge: Int64? { aps?["badge"]?.int64Value }
    /// A custom top-level key.
    public subscript(key: String) -> JSONValue? { json[key] }
}

/// Typed access to an FCM HTTP v1 message.
public struct FCMMessageView: Sendable, Hashable {
    /// The whole `message`.
    public let json: JSONValue

    /// `token`.
    public var token: String? { json["token"]?.stringValue }
    /// `topic`.
    public var topic: String? { json["topic"]?.stringValue }
    /// `condition`.
    public var condition: String? { json["condition"]?.stringValue }
    /// `notification.title`.
    public var notificationTitle: String? { json["notification"]?["title"]?.stringValue }
    /// `notification.body`.
    public var notificationBody: String? { json["notification"]?["body"]?.stringValue }
    /// `data` (string values).
    public var data: [String: String] {
        guard case .object(let members)? = json["data"] else { return [:] }
        var result: [String: String] = [:]
        for (key, value) in members {
            if let text = value.stringValue { result[key] = text }
        }
        return result
    }
    /// `apns.live_activity_token` (or `liveActivityToken`).
    public var liveActivityToken: String? {
        (json["apns"]?["live_activity_token"] ?? json["apns"]?["liveActivityToken"])?.stringValue
    }
    /// `apns.payload`.
    public var apnsPayload: APNSPayloadView? { json["apns"]?["payload"].map(APNSPayloadView.init) }
}

extension JSONValue {
    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The integer, if this is an integral number.
    public var int64Value: Int64? {
        if case .number(let text) = self { return Int64(text) }
        return nil
    }
}
