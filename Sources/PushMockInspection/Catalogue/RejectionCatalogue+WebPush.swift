import PushMockCore

/// The Web Push entries: each refusal a push service answers (in its own body: Apple's
/// `{"reason"}`, autopush's `{"errno"}`, Google's text), and each push a browser drops though the
/// service answered 201. The recorded reason is the rule; the entry's status is its service's.
extension RejectionCatalogue {
    static let rfc8030 = "https://www.rfc-editor.org/rfc/rfc8030"
    static let rfc8291 = "https://www.rfc-editor.org/rfc/rfc8291"
    static let rfc8292 = "https://www.rfc-editor.org/rfc/rfc8292"
    static let autopush = "https://autopush.readthedocs.io/en/latest/http.html#error-codes"
    static let appleWebPush = "https://developer.apple.com/documentation/usernotifications/sending-web-push-notifications-in-web-apps-and-browsers"

    /// A push to the entry's subscription: TTL 60, a sealed JSON notification, VAPID signed for the
    /// push port, with the headers replaced or added (a nil value removes one).
    static func webPush(
        path: String = "{subscription}", body: String = #"{"title":"PushMock","body":"catalogue"}"#, seal: Step.Seal = .subscription,
        auth: Step.Auth = .vapid(subject: "mailto:catalogue@example.com"), _ changes: [(String, String?)] = []
    ) -> Step {
        var headers = [HeaderField(name: "ttl", value: "60"), HeaderField(name: "content-encoding", value: "aes128gcm")]
        for (name, value) in changes {
            headers.removeAll { $0.name == name }
            if let value { headers.append(HeaderField(name: name, value: value)) }
        }
        return Step(method: "POST", path: path, headers: headers, body: body, auth: auth, seal: seal)
    }

    static func webPushEntry(
        _ id: String, _ status: Int, _ reason: String, trigger: String, reference: String, path: String? = nil,
        subscription: RejectionEntry.WebPushSetup, _ step: Step
    ) -> RejectionEntry {
        RejectionEntry(
            "webpush-\(id)", "webpush", status, reason, trigger: trigger, reference: reference, path: path, subscription: subscription, steps: [step])
    }

    static let webPush: [RejectionEntry] = [
        webPushEntry(
            "unknown-subscription", 404, "UnknownSubscription", trigger: "a push to an endpoint no browser subscribed (autopush errno 102)",
            reference: autopush, subscription: .init(service: .mozilla), webPush(path: "/wpush/v2/gAAAAABnotaminted0subscription0id0000000000")),
        webPushEntry(
            "expired-subscription", 410, "ExpiredSubscription",
            trigger: "a push to a subscription the browser dropped: remove it from your database (autopush errno 106)", reference: autopush,
            subscription: .init(service: .mozilla, expired: true), webPush()),
        webPushEntry(
            "missing-ttl", 400, "MissingTTL", trigger: "no TTL header (autopush errno 111)", reference: rfc8030 + "#section-5.2", path: "header:ttl",
            subscription: .init(service: .mozilla), webPush([("ttl", nil)])),
        webPushEntry(
            "invalid-urgency", 400, "InvalidUrgency", trigger: "Urgency other than very-low, low, normal or high",
            reference: rfc8030 + "#section-5.3", path: "header:urgency", subscription: .init(service: .mozilla), webPush([("urgency", "urgent")])),
        webPushEntry(
            "invalid-topic", 400, "InvalidTopic", trigger: "a Topic over 32 characters, or outside the base64url alphabet (autopush errno 113)",
            reference: rfc8030 + "#section-5.4", path: "header:topic", subscription: .init(service: .mozilla),
            webPush([("topic", "order/shipped")])),
        webPushEntry(
            "payload-too-large", 413, "PayloadTooLarge", trigger: "a body over 4 096 bytes (autopush errno 104)", reference: rfc8030 + "#section-7.2",
            subscription: .init(service: .mozilla), webPush(body: "{big}", seal: .none)),
        webPushEntry(
            "unsupported-encoding", 400, "UnsupportedEncoding", trigger: "a payload without Content-Encoding: aes128gcm (or aesgcm)",
            reference: rfc8291 + "#section-4", path: "header:content-encoding", subscription: .init(service: .mozilla),
            webPush([("content-encoding", "gzip")])),
        webPushEntry(
            "authorization-missing", 403, "authorizationMissing",
            trigger: "no VAPID to Apple, which always wants it: BadJwtToken", reference: appleWebPush, path: "header:authorization",
            subscription: .init(service: .apple, withKey: false), webPush(auth: .none)),
        webPushEntry(
            "subject-localhost", 403, "subjectLocalhost",
            trigger: "a VAPID sub of mailto:…@localhost, which Apple refuses: BadJwtToken (other services take it)", reference: appleWebPush,
            path: "header:authorization", subscription: .init(service: .apple), webPush(auth: .vapid(subject: "mailto:admin@localhost"))),
        webPushEntry(
            "key-mismatch", 403, "keyMismatch",
            trigger: "VAPID signed with a key other than the applicationServerKey the browser subscribed with: BadJwtToken",
            reference: appleWebPush, path: "header:authorization", subscription: .init(service: .apple),
            webPush(auth: .vapid(subject: "mailto:catalogue@example.com", otherKey: true))),
        webPushEntry(
            "audience", 401, "audience", trigger: "a VAPID aud other than the endpoint's origin (autopush errno 109)",
            reference: rfc8292 + "#section-2", path: "header:authorization", subscription: .init(service: .mozilla),
            webPush(auth: .vapid(subject: "mailto:catalogue@example.com", audience: "https://push.example.com"))),
        webPushEntry(
            "expired-token", 401, "expired", trigger: "a VAPID exp in the past (autopush errno 109)", reference: rfc8292 + "#section-2",
            path: "header:authorization", subscription: .init(service: .mozilla),
            webPush(auth: .vapid(subject: "mailto:catalogue@example.com", expiresIn: -60))),
        webPushEntry(
            "expiry-too-far", 401, "expiryTooFar", trigger: "a VAPID exp more than 24 hours ahead (autopush errno 109)",
            reference: rfc8292 + "#section-2", path: "header:authorization", subscription: .init(service: .mozilla),
            webPush(auth: .vapid(subject: "mailto:catalogue@example.com", expiresIn: 25 * 3600))),
        webPushEntry(
            "does-not-decrypt", 201, "doesNotDecrypt",
            trigger: "a payload sealed to another subscription's keys: the service answers 201, the browser drops it (recorded dropped)",
            reference: rfc8291 + "#section-3.4", subscription: .init(service: .google), webPush(seal: .otherKeys)),
        webPushEntry(
            "declarative-invalid", 201, "DeclarativeWebPushInvalid",
            trigger: "a Declarative Web Push message without notification.navigate: Safari does not show it (recorded dropped)",
            reference: "docs/web-push.md#declarative-web-push", path: "notification.navigate", subscription: .init(service: .apple),
            webPush(body: #"{"web_push":8030,"notification":{"title":"PushMock"}}"#)),
    ]
}
