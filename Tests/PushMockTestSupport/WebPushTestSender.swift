import Crypto
import Foundation
import PushMockCore

/// An application server for tests: encrypts a message to a subscription (RFC 8291, one
/// aes128gcm record) and signs VAPID tokens (RFC 8292), written from the RFCs here apart from
/// PushMock's decryption (which is checked against http-ece's and py-vapid's fixtures).
package struct WebPushTestSender {
    let key = P256.Signing.PrivateKey()

    package init() {}

    /// `k`: the VAPID public key, base64url.
    package var publicKey: String { Base64URL.encode(key.publicKey.x963Representation) }

    /// `Authorization: vapid t=…, k=…` with these claims (nil leaves one out).
    package func authorization(aud: String?, exp: Int64?, sub: String?) throws -> String {
        var claims: [String: Any] = [:]
        if let aud { claims["aud"] = aud }
        if let exp { claims["exp"] = exp }
        if let sub { claims["sub"] = sub }
        let header = Base64URL.encode(Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let body = Base64URL.encode(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
        let input = header + "." + body
        let signature = try key.signature(for: Array(input.utf8)).rawRepresentation
        return "vapid t=\(input).\(Base64URL.encode(signature)), k=\(publicKey)"
    }

    /// `plaintext` encrypted to the subscription whose keys are `p256dh` and `auth` (base64url).
    package static func encrypt(_ plaintext: [UInt8], p256dh: String, auth: String, recordSize: UInt32 = 4096) throws -> [UInt8] {
        let receiver = try P256.KeyAgreement.PublicKey(x963Representation: Base64URL.decode(Substring(p256dh))!)
        let authSecret = Base64URL.decode(Substring(auth))!
        let sender = P256.KeyAgreement.PrivateKey()
        let salt = (0..<16).map { _ in UInt8.random(in: .min ... .max) }
        let shared = try sender.sharedSecretFromKeyAgreement(with: receiver)
        let senderKey = Array(sender.publicKey.x963Representation)
        let keyInfo = Array("WebPush: info".utf8) + [0] + Array(receiver.x963Representation) + senderKey
        let ikm = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: authSecret, sharedInfo: keyInfo, outputByteCount: 32)
        let cek = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
        let sealed = try AES.GCM.seal(plaintext + [2], using: cek, nonce: AES.GCM.Nonce(data: nonce.withUnsafeBytes { Array($0) }))
        let header = salt + withUnsafeBytes(of: recordSize.bigEndian) { Array($0) } + [65] + senderKey
        return header + Array(sealed.ciphertext) + Array(sealed.tag)
    }
}
