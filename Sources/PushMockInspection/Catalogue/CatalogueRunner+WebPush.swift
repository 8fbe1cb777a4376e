import Crypto
import PushMockCore

/// A `webpush` catalogue entry: a subscription minted for it (made with a fresh VAPID key pair as
/// its application server key), the entry's push sent to it as an application server would send
/// it (sealed to its keys, VAPID signed for the push port's origin), then the subscription
/// removed.
extension CatalogueRunner {
    func runWebPush(_ entry: RejectionEntry) async throws -> SendResult {
        guard let webPush, let setup = entry.subscription else {
            throw InspectionError(500, "catalogue entry \(entry.id) needs a Web Push subscription registry")
        }
        let nonce = Self.hex(8)
        let now = now()
        let key = P256.Signing.PrivateKey()
        let subscription = webPush.create(
            service: setup.service, applicationServerKey: setup.withKey ? Array(key.publicKey.x963Representation) : nil, now: now * 1000)
        defer { _ = webPush.remove(subscription.id) }
        if setup.expired { _ = webPush.expire(subscription.id) }
        let origin = "https://" + sender.authority
        var requests: [OutgoingRequest] = []
        for step in entry.steps {
            var headers = step.headers
            let plaintext = Array(step.body.replacing("{big}", with: String(repeating: "x", count: 5000)).utf8)
            var body = plaintext
            if step.seal != .none {
                let keys = step.seal == .subscription ? subscription.keys : WebPushKeys()
                do {
                    body = try WebPushEncryption.seal(plaintext, p256dh: Base64URL.decode(Substring(keys.p256dh)) ?? [], authSecret: keys.authSecret)
                } catch {
                    throw InspectionError(500, "catalogue entry \(entry.id): \(error)")
                }
            }
            switch step.auth {
            case .vapid(let subject, let audience, let expiresIn, let otherKey):
                let value = WebPushEncryption.vapid(
                    audience: audience ?? origin, subject: subject, expiry: now + expiresIn, key: otherKey ? P256.Signing.PrivateKey() : key)
                headers.append(HeaderField(name: "authorization", value: value))
            case .literal(let value):
                headers.append(HeaderField(name: "authorization", value: value))
            case .none, .apns, .apnsTampered, .fcm:
                break
            }
            headers.append(HeaderField(name: Self.markerHeader, value: nonce))
            requests.append(
                OutgoingRequest(
                    method: step.method, path: step.path.replacing("{subscription}", with: subscription.path), headers: headers, body: body))
        }
        var result = try await send(requests, nonce: nonce)
        result.entry = entry.id
        result.produced = result.reason == entry.reason
        return result
    }
}
