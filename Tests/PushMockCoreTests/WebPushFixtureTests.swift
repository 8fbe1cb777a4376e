import Crypto
import Foundation
import PushMockCore
import Testing

/// PushMock's Web Push crypto against an independent implementation: messages encrypted by
/// http-ece and VAPID tokens signed by py-vapid (scripts/interop/webpush_fixtures.py wrote
/// `Fixtures/web-push/*.json`), and RFC 8291's own worked example.
@Suite("Web Push: decryption and VAPID against http-ece, py-vapid and RFC 8291")
struct WebPushFixtureTests {
    struct EncryptionFixture: Decodable, Sendable, CustomTestStringConvertible {
        var name: String
        var privateKey: String
        var p256dh: String
        var auth: String
        var body: String
        var plaintext: String?
        var rule: String?
        /// `aesgcm` (its salt and sender key travel in headers); nil: aes128gcm.
        var encoding: String?
        var salt: String?
        var dh: String?
        var testDescription: String { name }
    }

    struct VAPIDFixture: Decodable, Sendable, CustomTestStringConvertible {
        struct Claims: Decodable, Sendable {
            var aud: String?
            var exp: Int64?
            var sub: String?
        }
        var name: String
        var endpoint: String
        var now: Int64
        var authorization: String?
        var cryptoKey: String?
        var key: String
        var claims: Claims?
        var rule: String?
        var testDescription: String { name }
    }

    static func load<Fixture: Decodable>(_ name: String) -> [Fixture] {
        let url = Bundle.module.url(forResource: "Fixtures/web-push/\(name)", withExtension: "json")!
        return try! JSONDecoder().decode([Fixture].self, from: Data(contentsOf: url))
    }

    static func bytes(_ text: String) -> [UInt8] { Base64URL.decode(Substring(text))! }

    @Test("each body opens to its plaintext, or is refused by the rule a browser drops it by", arguments: load("encryption") as [EncryptionFixture])
    func decryption(_ fixture: EncryptionFixture) throws {
        let privateKey = try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.bytes(fixture.privateKey))
        let keys = WebPushKeys(privateKey: privateKey, authSecret: Self.bytes(fixture.auth))
        #expect(keys.p256dh == fixture.p256dh, "the public key PushMock hands out is the one the sender encrypted to")
        do {
            let opened =
                fixture.encoding == "aesgcm"
                ? try WebPushDecryption.openAESGCM(
                    Self.bytes(fixture.body), salt: Self.bytes(fixture.salt ?? ""), senderKey: Self.bytes(fixture.dh ?? ""),
                    privateKey: keys.privateKey,
                    authSecret: keys.authSecret)
                : try WebPushDecryption.open(Self.bytes(fixture.body), privateKey: keys.privateKey, authSecret: keys.authSecret)
            #expect(fixture.rule == nil, "opened, but the fixture expects \(fixture.rule ?? "")")
            #expect(opened.plaintext == fixture.plaintext.map(Self.bytes))
            #expect(opened.senderKey.count == 65)
        } catch {
            #expect(error.rawValue == fixture.rule, "\(error.explanation)")
        }
    }

    @Test("every decryption rule has a fixture, and both content codings have a known-good message")
    func everyDecryptionRuleCovered() {
        let fixtures = Self.load("encryption") as [EncryptionFixture]
        #expect(Set(fixtures.compactMap(\.rule)) == Set(WebPushDecryption.Rule.allCases.map(\.rawValue)))
        #expect(Set(fixtures.filter { $0.rule == nil }.map { $0.encoding ?? "aes128gcm" }) == ["aes128gcm", "aesgcm"])
    }

    @Test("each token's claims are read, and each broken rule is named", arguments: load("vapid") as [VAPIDFixture])
    func vapid(_ fixture: VAPIDFixture) throws {
        let origin = "https://localhost:8443"
        #expect(fixture.endpoint.hasPrefix(origin + "/"))
        let credentials: VAPIDCredentials
        do {
            credentials = try VAPIDCredentials.parse(authorization: fixture.authorization, cryptoKey: fixture.cryptoKey)
        } catch {
            #expect(error.rawValue == fixture.rule, "\(error.explanation)")
            return
        }
        let broken = credentials.check(origin: origin, now: fixture.now, refuseLocalhostSubject: true)
        #expect(broken?.rawValue == fixture.rule, "\(broken?.explanation ?? "no rule broken")")
        if let claims = fixture.claims {
            #expect(credentials.key == Self.bytes(fixture.key))
            #expect(credentials.claims.audience == claims.aud)
            #expect(credentials.claims.expiry == claims.exp)
            #expect(credentials.claims.subject == claims.sub)
        }
        if fixture.rule == "subjectLocalhost" {
            #expect(credentials.check(origin: origin, now: fixture.now, refuseLocalhostSubject: false) == nil, "only Apple refuses it")
        }
    }

    @Test("every VAPID rule has a fixture")
    func everyVAPIDRuleCovered() {
        let covered = Set((Self.load("vapid") as [VAPIDFixture]).compactMap(\.rule))
        #expect(covered == Set(VAPIDCredentials.Rule.allCases.map(\.rawValue)))
    }

    @Test("new keys are a P-256 point and a 16-byte secret, in PushSubscription.toJSON()'s base64url")
    func newKeys() {
        let keys = WebPushKeys()
        #expect(Self.bytes(keys.p256dh).count == 65 && Self.bytes(keys.p256dh).first == 4)
        #expect(Self.bytes(keys.auth).count == 16)
        #expect(WebPushKeys().auth != keys.auth)
        #expect(!keys.p256dh.contains("=") && !keys.auth.contains("="))
    }
}
