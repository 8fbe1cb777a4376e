import Crypto
import PushMockCore

/// A Web Push test push: sent as an application server sends one, its payload sealed to the
/// subscription's keys (RFC 8291, aes128gcm) and VAPID signed (RFC 8292) for the push port's origin.
extension TestPush {
    /// The payload a send and a check use when none is given.
    static let sampleNotification = Array(#"{"title":"PushMock","body":"A test push"}"#.utf8)

    /// Reads the Web Push members: `subscription`, `pushService`, `vapidKey`, and the plaintext
    /// (`payload`, a JSON object, or `body`, text). A check needs a subscription: it mints none.
    mutating func readWebPush(_ object: inout ConfigObject, raw: String?, check: Bool) throws(ConfigError) {
        subscription = try Self.pathSegment(&object, "subscription")
        if let name = try object.string("pushService") {
            guard let service = WebPushSubscription.Service(rawValue: name) else {
                throw object.error("pushService", "must be \"apple\", \"mozilla\" or \"google\"; got \(name)")
            }
            if subscription != nil { throw object.error("pushService", "is for the subscription a send mints: leave it out with \"subscription\"") }
            pushService = service
        }
        if let pem = try object.string("vapidKey") {
            guard let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) else {
                throw object.error("vapidKey", "must be a P-256 private key in PEM (openssl ecparam -name prime256v1 -genkey -noout)")
            }
            vapidKey = key
        }
        let payload = try object.json("payload")
        if let payload {
            guard case .object = payload else {
                throw object.error("payload", "must be a JSON object (the message the service worker reads); send other text as \"body\"")
            }
            if raw != nil { throw object.error("payload", "give \"payload\" or \"body\", not both") }
        }
        body = payload.map(\.compactText) ?? raw.map { Array($0.utf8) }
        if check, subscription == nil {
            throw object.error(
                "subscription", "give the Web Push \"subscription\" to check (POST /api/v1/web-push/subscriptions mints one): a check mints none")
        }
    }

    /// The request for the push port: to the subscription's endpoint (one minted now on
    /// ``pushService`` when none is given), with `TTL: 60` when no `ttl` is given, the plaintext
    /// sealed with aes128gcm, and VAPID credentials for `https://<authority>` signed with
    /// ``vapidKey`` when no `authorization` is given. A minted subscription is made with that key
    /// as its application server key. A subscription made with another key needs that key's
    /// private half as `vapidKey`, as an application server would: PushMock answers `keyMismatch`.
    func webPushRequest(
        subscriptions: WebPushSubscriptions, authority: String, now: Int64
    ) throws(InspectionError) -> OutgoingRequest {
        let key = vapidKey ?? P256.Signing.PrivateKey()
        let target: WebPushSubscription
        if let subscription {
            guard let found = subscriptions.subscription(subscription) else {
                throw InspectionError.notFound(
                    "no Web Push subscription \(subscription) (GET /api/v1/web-push/subscriptions lists them; leave \"subscription\" out to mint one)"
                )
            }
            target = found
        } else {
            target = subscriptions.create(service: pushService, applicationServerKey: Array(key.publicKey.x963Representation), now: now * 1000)
        }
        var headers = headers
        func has(_ name: String) -> Bool { headers.contains { $0.name == name } }
        if !has("ttl") { headers.append(HeaderField(name: "ttl", value: "60")) }
        let plaintext = body ?? Self.sampleNotification
        let sealed: [UInt8]
        do {
            sealed = try WebPushEncryption.seal(
                plaintext, p256dh: Array(target.keys.privateKey.publicKey.x963Representation), authSecret: target.keys.authSecret)
        } catch {
            // A subscription minted for a push that cannot be sent is not kept.
            if subscription == nil { _ = subscriptions.remove(target.id) }
            throw InspectionError.badRequest("the payload cannot be sealed to subscription \(target.id): \(error)")
        }
        if !has("content-encoding") { headers.append(HeaderField(name: "content-encoding", value: "aes128gcm")) }
        if !has("authorization") {
            // The origin a push service checks `aud` against leaves out the default port.
            let origin = "https://" + (authority.hasSuffix(":443") ? String(authority.dropLast(4)) : authority)
            headers.append(
                HeaderField(
                    name: "authorization",
                    value: WebPushEncryption.vapid(audience: origin, subject: "mailto:pushmock@example.com", expiry: now + 43_200, key: key)))
        }
        return OutgoingRequest(method: "POST", path: target.path, headers: headers, body: sealed, authority: authority)
    }
}
