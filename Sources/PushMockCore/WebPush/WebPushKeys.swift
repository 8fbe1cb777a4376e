public import Crypto

/// A subscription's keys as the browser that made it holds them (RFC 8291 section 2): the P-256
/// key pair whose public half is the subscription's `keys.p256dh`, and the 16-byte `keys.auth`
/// secret. PushMock keeps both, so it can open every message sent to the subscription.
public struct WebPushKeys: Sendable {
    /// The private half of `p256dh`.
    public let privateKey: P256.KeyAgreement.PrivateKey
    /// The auth secret.
    public let authSecret: [UInt8]

    /// New keys, as `PushManager.subscribe()` makes them.
    public init() {
        var generator = SystemRandomNumberGenerator()
        self.init(privateKey: P256.KeyAgreement.PrivateKey(), authSecret: (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Keys already made (restored from a store, or a fixture's).
    public init(privateKey: P256.KeyAgreement.PrivateKey, authSecret: [UInt8]) {
        self.privateKey = privateKey
        self.authSecret = authSecret
    }

    /// `keys.p256dh` as `PushSubscription.toJSON()` gives it: the uncompressed public key, base64url.
    public var p256dh: String { Base64URL.encode(privateKey.publicKey.x963Representation) }
    /// `keys.auth` as `PushSubscription.toJSON()` gives it: base64url.
    public var auth: String { Base64URL.encode(authSecret) }
}
