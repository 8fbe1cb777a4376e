import Crypto
import PushMockCore

/// A push described in a few fields, for `POST /api/v1/check` (judged, not recorded) and
/// `POST /api/v1/send` (sent through the push port): what the MCP tools `check_payload` and
/// `send_test_push` take.
///
/// ```json
/// {"service": "apns", "token": "…", "headers": {"apns-push-type": "liveactivity", "apns-topic": "…"}, "payload": {"aps": {…}}}
/// {"service": "fcm", "project": "…", "message": {"token": "…", "notification": {…}}}
/// {"service": "webpush", "subscription": "…", "payload": {"title": "…"}, "headers": {"urgency": "high"}}
/// ```
struct TestPush: Sendable {
    enum Service: String, Sendable { case apns, fcm, webpush }

    var service: Service
    /// The APNs device token (the path's last segment).
    var token: String?
    /// The APNs environment (nil: the server's default).
    var environment: APNSEnvironment?
    /// Request headers, as sent (names lowercased; a name HTTP cannot carry is the push port's
    /// to refuse, as it would be a sender's).
    var headers: [HeaderField] = []
    /// The body: an APNs payload, or an FCM request (`{"message": …, "validate_only": …}`).
    var body: [UInt8]?
    /// The FCM project (nil: the server's service account's).
    var project: String?
    /// Web Push: the minted subscription's id (nil: a send mints one on ``pushService``).
    var subscription: String?
    /// Web Push: the push service a send mints a subscription on when none is given.
    var pushService = WebPushSubscription.Service.mozilla
    /// Web Push: the VAPID private key (PEM, P-256) to sign with (nil: one made for the push).
    var vapidKey: P256.Signing.PrivateKey?

    static let file = "request body"

    /// Reads `bytes`; a check needs a payload or message, a send fills in a sample one.
    init(_ bytes: [UInt8], check: Bool) throws(InspectionError) {
        let json = try ControlBody.json(bytes)
        do throws(ConfigError) {
            var object = try ConfigObject(file: Self.file, path: "", value: json)
            guard let name = try object.string("service"), let service = Service(rawValue: name) else {
                throw object.error("service", "must be \"apns\", \"fcm\" or \"webpush\"")
            }
            self.service = service
            let raw = try object.string("body")
            if let given = try object.object("headers") {
                headers = try Self.headers(given)
            }
            switch service {
            case .apns:
                token = try Self.pathSegment(&object, "token")
                if let name = try object.string("environment") {
                    guard let environment = APNSEnvironment(rawValue: name) else {
                        throw object.error("environment", "must be \"sandbox\" or \"production\"; got \(name)")
                    }
                    self.environment = environment
                }
                let payload = try object.json("payload")
                if let payload {
                    guard case .object = payload else {
                        throw object.error("payload", "must be a JSON object ({\"aps\": …}); send other bytes as \"body\"")
                    }
                }
                body = payload.map(\.compactText) ?? raw.map { Array($0.utf8) }
            case .fcm:
                project = try Self.pathSegment(&object, "project")
                let message = try object.json("message")
                if let message {
                    guard case .object = message else {
                        throw object.error("message", "must be a JSON object (the message: token, notification, android, apns…)")
                    }
                }
                let validateOnly = try object.bool("validateOnly")
                if let message {
                    var request: [(key: String, value: JSONValue)] = [("message", message)]
                    if let validateOnly { request.append(("validate_only", .bool(validateOnly))) }
                    body = JSONValue.object(request).compactText
                } else {
                    body = raw.map { Array($0.utf8) }
                }
            case .webpush:
                try readWebPush(&object, raw: raw, check: check)
            }
            try object.finish()
            if check, service != .webpush, body == nil {
                throw ConfigObject.error(
                    Self.file, "",
                    service == .apns
                        ? "give the APNs \"payload\" to check (or a raw \"body\")" : "give the FCM \"message\" to check (or a raw \"body\")")
            }
        } catch {
            throw InspectionError.badRequest(error.description)
        }
    }

    /// A string that goes into the request's path as one segment: visible ASCII, no `/`, `?`,
    /// `#` or `%` (a malformed token is still a token: `BadDeviceToken` is for those).
    static func pathSegment(_ object: inout ConfigObject, _ key: String) throws(ConfigError) -> String? {
        guard let value = try object.string(key) else { return nil }
        guard !value.isEmpty, value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f && !"/?#%".utf8.contains($0) }) else {
            throw object.error(key, "must be printable ASCII without spaces, /, ?, # or %, as it goes into the request's path")
        }
        return value
    }

    private static func headers(_ object: ConfigObject) throws(ConfigError) -> [HeaderField] {
        var object = object
        var fields: [HeaderField] = []
        for name in object.keys {
            guard let value = try object.string(name) else { continue }
            guard !value.utf8.contains(where: { $0 == 0x0d || $0 == 0x0a || $0 == 0 }) else {
                throw object.error(name, "a header value cannot hold CR, LF or NUL")
            }
            fields.append(HeaderField(name: name.lowercased(), value: value))
        }
        return fields
    }

    /// A random APNs device token (64 hex digits).
    static func sampleDeviceToken() -> String { CatalogueRunner.hex(32) }

    /// The request for the push port: the path, the headers with `authorization` added when it is
    /// missing (a provider token signed with the server's key, or `bearer`), and for a send the
    /// sample parts a sender always has (topic, push type, payload, target).
    /// A Web Push push goes to its subscription in `webPush`, VAPID signed for the push port's
    /// `authority` (``webPushRequest(subscriptions:authority:now:)``).
    func request(
        credentials: CatalogueCredentials, now: Int64, bearer: String?, send: Bool, webPush: WebPushSubscriptions?, authority: String
    ) throws(InspectionError) -> OutgoingRequest {
        var headers = headers
        func has(_ name: String) -> Bool { headers.contains { $0.name == name } }
        switch service {
        case .webpush:
            guard let webPush else { throw InspectionError(409, "this inspection port keeps no Web Push subscriptions") }
            return try webPushRequest(subscriptions: webPush, authority: authority, now: now)
        case .apns:
            let token = token ?? Self.sampleDeviceToken()
            if send {
                if !has("apns-topic"), let topic = credentials.apns?.topic { headers.append(HeaderField(name: "apns-topic", value: topic)) }
                if !has("apns-push-type") { headers.append(HeaderField(name: "apns-push-type", value: "alert")) }
            }
            if !has("authorization") {
                guard let apns = credentials.apns else {
                    throw InspectionError(
                        409,
                        "this server holds no APNs private key to sign a provider token with: configure --apns-key with a .p8 private key, or pass an \"authorization\" header"
                    )
                }
                headers.append(HeaderField(name: "authorization", value: "bearer " + (try CatalogueRunner.providerToken(apns, issuedAt: now))))
            }
            let body = body ?? Array(#"{"aps":{"alert":{"title":"PushMock","body":"A test push"}}}"#.utf8)
            return OutgoingRequest(method: "POST", path: "/3/device/\(token)", headers: headers, body: body)
        case .fcm:
            let project = project ?? credentials.project
            if let bearer, !has("authorization") { headers.append(HeaderField(name: "authorization", value: "Bearer " + bearer)) }
            headers.append(HeaderField(name: "content-type", value: "application/json"))
            let sample =
                #"{"message":{"token":"\#(CatalogueRunner.sampleRegistrationToken())","notification":{"title":"PushMock","body":"A test push"}}}"#
            return OutgoingRequest(
                method: "POST", path: "/v1/projects/\(project)/messages:send", headers: headers, body: body ?? Array(sample.utf8))
        }
    }
}

/// `POST /api/v1/check`: what the push port would answer, and the delivery it would record.
public struct CheckResult: Sendable, Codable {
    /// Always false: a check is not recorded.
    public var recorded = false
    /// Whether the push port would answer 2xx.
    public var accepted: Bool
    /// The status it would answer.
    public var status: Int
    /// The answer's body, as text.
    public var body: String
    /// The delivery it would record (id 0), with the outcome, reason, explanation and diagnostics.
    public var delivery: DeliveryResource

    init(_ check: PushCheck) {
        accepted = (200..<300).contains(check.status)
        status = check.status
        body = String(decoding: check.body, as: UTF8.self)
        delivery = DeliveryResource(check.delivery)
    }
}
