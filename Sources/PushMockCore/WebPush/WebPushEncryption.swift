public import Crypto

/// What an application server does before it sends a Web Push message: encrypts the payload to
/// the subscription's keys (RFC 8291 over RFC 8188's `aes128gcm`, one record) and signs VAPID
/// credentials (RFC 8292). `pushmock send webpush` and the rejections catalogue send with it;
/// ``WebPushDecryption`` opens what it seals.
///
/// ```swift
/// let body = try WebPushEncryption.seal(Array("hello".utf8), p256dh: subscription.p256dh, authSecret: subscription.auth)
/// let authorization = WebPushEncryption.vapid(audience: "https://localhost:2197", subject: "mailto:dev@example.com", expiry: now + 3600, key: key)
/// ```
public enum WebPushEncryption {
    /// Why a payload cannot be sealed for a subscription.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// `p256dh` is not an uncompressed P-256 point.
        case receiverKeyInvalid
        /// `auth` is not 16 bytes.
        case authSecretLength(Int)
        /// The payload and its padding do not fit one record of `recordSize`.
        case tooLong(Int)

        public var description: String {
            switch self {
            case .receiverKeyInvalid: "the subscription's p256dh is not a base64url uncompressed P-256 point (65 bytes, 0x04 first)"
            case .authSecretLength(let count): "the subscription's auth secret is \(count) bytes; RFC 8291 section 3.2 makes it 16"
            case .tooLong(let count): "\(count) bytes of payload do not fit one aes128gcm record (RFC 8291 section 4 allows one)"
            }
        }
    }

    /// `plaintext` sealed for the subscription whose public key is `p256dh` (65 bytes) and whose
    /// auth secret is `authSecret`: the `aes128gcm` body, header included. `salt` and `senderKey`
    /// are fresh unless given (a test's fixed vectors).
    public static func seal(
        _ plaintext: [UInt8], p256dh: [UInt8], authSecret: [UInt8], recordSize: Int = 4096, padding: Int = 0,
        salt: [UInt8]? = nil, senderKey: P256.KeyAgreement.PrivateKey = P256.KeyAgreement.PrivateKey()
    ) throws(Problem) -> [UInt8] {
        guard let receiver = try? P256.KeyAgreement.PublicKey(x963Representation: p256dh), p256dh.count == 65 else {
            throw .receiverKeyInvalid
        }
        guard authSecret.count == 16 else { throw .authSecretLength(authSecret.count) }
        // One record: the data, the 0x02 delimiter, the padding, and the tag.
        guard plaintext.count + 1 + padding + WebPushDecryption.tagSize <= recordSize else { throw .tooLong(plaintext.count) }
        let salt = salt ?? (0..<16).map { _ in UInt8.random(in: 0...255) }
        let senderPublic = Array(senderKey.publicKey.x963Representation)
        guard let shared = try? senderKey.sharedSecretFromKeyAgreement(with: receiver) else { throw .receiverKeyInvalid }
        let (key, nonce) = WebPushDecryption.contentKeys(
            shared: shared, authSecret: authSecret, receiverKey: p256dh, senderKey: senderPublic, salt: salt)
        let record = plaintext + [2] + [UInt8](repeating: 0, count: padding)
        // A 12-byte nonce and a 16-byte key are always valid for AES-GCM.
        let sealed = try! AES.GCM.seal(record, using: key, nonce: AES.GCM.Nonce(data: nonce))
        let size = UInt32(recordSize)
        let header = salt + [UInt8(size >> 24), UInt8(size >> 16 & 0xff), UInt8(size >> 8 & 0xff), UInt8(size & 0xff), 65] + senderPublic
        return header + Array(sealed.ciphertext) + Array(sealed.tag)
    }

    /// The claims as a VAPID `Authorization` value (`vapid t=<JWT>, k=<key>`, RFC 8292 section 3),
    /// the JWT signed ES256 with `key`.
    public static func vapid(audience: String, subject: String, expiry: Int64, key: P256.Signing.PrivateKey) -> String {
        let header = Base64URL.encode(Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let claims = Base64URL.encode(
            Array(#"{"aud":"\#(JSONText.escape(audience))","exp":\#(expiry),"sub":"\#(JSONText.escape(subject))"}"#.utf8))
        let input = header + "." + claims
        // ECDSA over P-256 with SHA-256 does not fail for a valid key.
        let signature = try! key.signature(for: Array(input.utf8))
        let token = input + "." + Base64URL.encode(Array(signature.rawRepresentation))
        return "vapid t=\(token), k=\(Base64URL.encode(Array(key.publicKey.x963Representation)))"
    }
}
