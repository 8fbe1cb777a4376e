import Crypto
import PushMockCore
import Testing

/// The sending side: what PushMock seals and signs (for `pushmock send webpush` and the rejections
/// catalogue) is byte for byte RFC 8291's worked example, opens with the receiving side (itself
/// checked against http-ece), and signs tokens the receiving side accepts.
@Suite("Web Push: sealing and VAPID signing")
struct WebPushEncryptionTests {
    static func bytes(_ text: String) -> [UInt8] { Base64URL.decode(Substring(text))! }

    @Test("RFC 8291 appendix A: the same keys, salt and plaintext seal to the RFC's message")
    func rfcExample() throws {
        let fixture = (WebPushFixtureTests.load("encryption") as [WebPushFixtureTests.EncryptionFixture]).first {
            $0.name == "RFC 8291 appendix A"
        }!
        let body = Self.bytes(fixture.body)
        // as_private, from the RFC's appendix; its public key is the message's keyid.
        let sender = try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.bytes("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"))
        #expect(Array(sender.publicKey.x963Representation) == Array(body[21..<86]))
        let sealed = try WebPushEncryption.seal(
            Self.bytes(fixture.plaintext!), p256dh: Self.bytes(fixture.p256dh), authSecret: Self.bytes(fixture.auth), recordSize: 4096,
            salt: Array(body[0..<16]), senderKey: sender)
        #expect(sealed == body)
    }

    @Test("a sealed payload opens to itself, padding included; each seal has its own salt and key")
    func roundTrip() throws {
        let keys = WebPushKeys()
        let plaintext = Array(#"{"title":"PushMock","body":"sealed"}"#.utf8)
        let first = try WebPushEncryption.seal(plaintext, p256dh: Self.bytes(keys.p256dh), authSecret: keys.authSecret, padding: 7)
        let opened = try WebPushDecryption.open(first, privateKey: keys.privateKey, authSecret: keys.authSecret)
        #expect(opened.plaintext == plaintext)
        #expect(opened.padding == 7)
        #expect(opened.recordSize == 4096)
        let second = try WebPushEncryption.seal(plaintext, p256dh: Self.bytes(keys.p256dh), authSecret: keys.authSecret)
        #expect(first[0..<16] != second[0..<16], "a fresh salt")
        #expect(first[21..<86] != second[21..<86], "a fresh sender key")
        #expect(throws: WebPushDecryption.Rule.doesNotDecrypt) {
            try WebPushDecryption.open(second, privateKey: WebPushKeys().privateKey, authSecret: keys.authSecret)
        }
    }

    @Test("what cannot be sealed is named: a bad p256dh, a short auth secret, a payload over one record")
    func problems() {
        let keys = WebPushKeys()
        #expect(throws: WebPushEncryption.Problem.receiverKeyInvalid) {
            try WebPushEncryption.seal([1], p256dh: [4] + [UInt8](repeating: 1, count: 64), authSecret: keys.authSecret)
        }
        #expect(throws: WebPushEncryption.Problem.authSecretLength(8)) {
            try WebPushEncryption.seal([1], p256dh: Self.bytes(keys.p256dh), authSecret: [UInt8](repeating: 1, count: 8))
        }
        #expect(throws: WebPushEncryption.Problem.tooLong(4080)) {
            try WebPushEncryption.seal([UInt8](repeating: 1, count: 4080), p256dh: Self.bytes(keys.p256dh), authSecret: keys.authSecret)
        }
        // 4 096 - 16 (tag) - 1 (delimiter): the most one record holds.
        #expect(
            (try? WebPushEncryption.seal([UInt8](repeating: 1, count: 4079), p256dh: Self.bytes(keys.p256dh), authSecret: keys.authSecret)) != nil)
    }

    @Test("a signed VAPID header is read back with its claims and breaks no rule; a stale one is expired")
    func vapid() throws {
        let key = P256.Signing.PrivateKey()
        let header = WebPushEncryption.vapid(audience: "https://web.push.apple.com", subject: "mailto:ops@example.com", expiry: 1_000_600, key: key)
        let credentials = try VAPIDCredentials.parse(authorization: header, cryptoKey: nil)
        #expect(credentials.form == .vapid)
        #expect(credentials.key == Array(key.publicKey.x963Representation))
        #expect(credentials.claims.audience == "https://web.push.apple.com")
        #expect(credentials.claims.expiry == 1_000_600)
        #expect(credentials.claims.subject == "mailto:ops@example.com")
        #expect(credentials.check(origin: "https://web.push.apple.com", now: 1_000_000, refuseLocalhostSubject: true) == nil)
        #expect(credentials.check(origin: "https://web.push.apple.com", now: 1_000_600, refuseLocalhostSubject: true) == .expired)
        #expect(credentials.check(origin: "https://localhost:2197", now: 1_000_000, refuseLocalhostSubject: true) == .audience)
    }
}
