import Crypto
import Foundation
import PushMockCore
import Testing

/// Table-driven validator tests over `Fixtures/apns/*.json`: one file per case, named
/// `apns.<valid|invalid>.<case>.json`, each with a request, the connection's state, known devices
/// and the expected status and reason. `$TOKEN…` placeholders are minted here with test keys.
@Suite("APNs validation, fixture by fixture")
struct APNSFixtureTests {
    static let now: Int64 = 1_767_225_600  // 2026-01-01T00:00:00Z

    static let fixtures: [String] = {
        let directory = Bundle.module.url(forResource: "Fixtures/apns", withExtension: nil)!
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }()

    @Test("every fixture gets its expected answer", arguments: fixtures)
    func fixture(_ name: String) throws {
        let url = Bundle.module.url(forResource: "Fixtures/apns/\(name)", withExtension: "json")!
        let fixture = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let keys = TestKeys.shared
        let requestObject = try #require(fixture["request"] as? [String: Any])
        let headers = try #require(requestObject["headers"] as? [[String]]).map { HeaderField(name: $0[0], value: keys.expand($0[1])) }
        let body: [UInt8]
        if let text = requestObject["bodyText"] as? String {
            body = Array(text.utf8)
        } else if let size = requestObject["bodySize"] as? Int {
            let prefix = Array(#"{"aps":{"alert":"x"},"pad":""#.utf8)
            body = prefix + [UInt8](repeating: UInt8(ascii: "p"), count: size - prefix.count - 2) + Array(#""}"#.utf8)
            #expect(body.count == size)
        } else {
            body = try JSONSerialization.data(withJSONObject: requestObject["body"]!).map { $0 }
        }
        let request = APNSRequest(
            method: requestObject["method"] as! String,
            path: requestObject["path"] as! String,
            headers: headers,
            body: body,
            environment: APNSEnvironment(rawValue: requestObject["environment"] as? String ?? "sandbox")!
        )
        var auth = APNSConnectionAuth()
        var credential = APNSConnectionCredential.token
        if let connection = fixture["connection"] as? [String: Any] {
            if let bound = connection["auth"] as? [String: String] {
                auth.teamID = bound["teamID"]
                auth.keyID = bound["keyID"]
                auth.tokenIdentity = .init(keyID: bound["keyID"]!, issuedAtMilliseconds: keys.time(bound["tokenIssuedAt"]!) * 1000)
                auth.tokenChangedAt = keys.time(bound["changedAt"]!)
            }
            switch connection["credential"] as? String {
            case "certificate":
                credential = .certificate(
                    .init(
                        subject: "UID=com.example.app", bundleID: "com.example.app",
                        topics: ["com.example.app", "com.example.app.voip", "com.example.app.complication"], environments: [.sandbox, .production]))
            case "certificate-single-topic":
                credential = .certificate(
                    .init(subject: "UID=com.example.app", bundleID: "com.example.app", topics: ["com.example.app"], environments: [.sandbox]))
            case "certificate-production":
                credential = .certificate(
                    .init(subject: "UID=com.example.app", bundleID: "com.example.app", topics: ["com.example.app"], environments: [.production]))
            case "untrusted":
                credential = .untrustedCertificate(subject: "CN=stranger", problem: "not issued by a configured trust root")
            default:
                break
            }
        }
        var records: [String: DeviceRecord] = [:]
        for (token, value) in fixture["devices"] as? [String: [String: Any]] ?? [:] {
            let state: DeviceRecord.State
            switch value["state"] as? String {
            case "unregistered": state = .unregistered(sinceMilliseconds: (value["since"] as! NSNumber).int64Value)
            case "expired": state = .expired
            default: state = .active
            }
            records[token] = DeviceRecord(
                bundleID: value["bundleID"] as? String,
                environment: (value["environment"] as? String).flatMap(APNSEnvironment.init(rawValue:)),
                state: state
            )
        }
        let options = fixture["options"] as? [String: Any] ?? [:]
        var validationOptions = APNSValidationOptions()
        if let profile = options["liveActivityProfile"] as? String {
            validationOptions.liveActivity.profile = LiveActivityProfile(rawValue: profile)!
        }
        let validator = APNSValidator(
            options: validationOptions,
            tokens: keys.verifier,
            devices: DeviceRegistry(closed: options["closedRegistry"] as? Bool ?? false, records: records)
        )
        var ids = IDGenerator(seed: 7)
        let verdict = validator.validate(request, credential: credential, auth: &auth, now: PushInstant(secondsSinceEpoch: Self.now), ids: &ids)

        let expect = try #require(fixture["expect"] as? [String: Any])
        let status = verdict.rejection?.status ?? 200
        #expect(status == expect["status"] as? Int, "\(name): \(verdict.rejection?.reason ?? "accepted") — \(verdict.explanation ?? "")")
        #expect(verdict.rejection?.reason == expect["reason"] as? String, "\(name): \(verdict.explanation ?? "")")
        if let apnsID = expect["apnsID"] as? String {
            #expect(verdict.apnsID == apnsID)
        }
        if let timestamp = expect["timestamp"] as? NSNumber {
            #expect(verdict.unregisteredTimestamp == timestamp.int64Value)
        }
        if let dropped = expect["dropped"] as? String {
            #expect(verdict.droppedByDevice, "\(name) should be dropped by the device")
            #expect(verdict.liveActivityRule?.reason == dropped)
        } else {
            #expect(!verdict.droppedByDevice, "\(name): \(verdict.liveActivityRule?.reason ?? "")")
        }
        if let fragment = expect["explanationContains"] as? String {
            #expect(verdict.explanation?.contains(fragment) == true, "\(verdict.explanation ?? "no explanation")")
        }
        if verdict.isAccepted, case .token = credential {
            #expect(verdict.authenticated)
            #expect(auth.keyID != nil, "an accepted token push binds the connection")
        }
    }

    @Test("the fixtures reach every reason a request can trigger")
    func coverage() throws {
        var reached: Set<String> = []
        for name in Self.fixtures {
            let url = Bundle.module.url(forResource: "Fixtures/apns/\(name)", withExtension: "json")!
            let fixture = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
            if let reason = (fixture?["expect"] as? [String: Any])?["reason"] as? String { reached.insert(reason) }
            if let reason = (fixture?["expect"] as? [String: Any])?["dropped"] as? String { reached.insert(reason) }
        }
        // Reachable only through faults (Forbidden, TooManyRequests, 5xx) or as a GOAWAY reason
        // (IdleTimeout): covered by the server tests.
        let elsewhere: Set<String> = ["Forbidden", "TooManyRequests", "InternalServerError", "ServiceUnavailable", "Shutdown", "IdleTimeout"]
        let missing = Set(APNSRejectionReason.all.map(\.reason) + LiveActivityRule.all.map(\.reason)).subtracting(reached).subtracting(elsewhere)
        #expect(missing.isEmpty, "reasons without a fixture: \(missing.sorted())")
    }
}

/// Test keys and `$TOKEN…` placeholders.
final class TestKeys: Sendable {
    static let shared = TestKeys()

    let main = P256.Signing.PrivateKey()
    let second = P256.Signing.PrivateKey()
    let production = P256.Signing.PrivateKey()
    let other = P256.Signing.PrivateKey()
    let topic = P256.Signing.PrivateKey()
    let stranger = P256.Signing.PrivateKey()
    let verifier: ProviderTokenVerifier
    let tokens: [String: String]

    init() {
        var registry = APNSCredentialRegistry()
        registry.add(APNSSigningKey(keyID: "KEY0000001", teamID: "TEAM000001", publicKey: main.publicKey))
        registry.add(APNSSigningKey(keyID: "KEY0000002", teamID: "TEAM000001", publicKey: second.publicKey))
        registry.add(APNSSigningKey(keyID: "KEYPROD001", teamID: "TEAM000001", publicKey: production.publicKey, scope: .production))
        registry.add(APNSSigningKey(keyID: "KEYOTHER01", teamID: "TEAM000002", publicKey: other.publicKey))
        registry.add(APNSSigningKey(keyID: "KEYTOPIC01", teamID: "TEAM000001", publicKey: topic.publicKey, topics: ["com.example.other"]))
        registry.addBundle("com.example.app", team: "TEAM000001")
        registry.addBundle("com.example.other", team: "TEAM000001")
        registry.addBundle("com.rival.app", team: "TEAM000002")
        verifier = ProviderTokenVerifier(registry: registry)
        let now = APNSFixtureTests.now
        func jwt(_ header: String, _ claims: String, _ key: P256.Signing.PrivateKey, der: Bool = false) -> String {
            let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
            let signature = try! key.signature(for: Array(input.utf8))
            return input + "." + Base64URL.encode(der ? Array(signature.derRepresentation) : Array(signature.rawRepresentation))
        }
        func es256(_ kid: String, _ iss: String, _ iat: Int64, _ key: P256.Signing.PrivateKey, der: Bool = false) -> String {
            jwt(#"{"alg":"ES256","kid":"\#(kid)"}"#, #"{"iss":"\#(iss)","iat":\#(iat)}"#, key, der: der)
        }
        tokens = [
            "$TOKEN_STRING_IAT": jwt(#"{"alg":"ES256","kid":"KEY0000001","typ":"JWT"}"#, #"{"iss":"TEAM000001","iat":"\#(now - 60)"}"#, main),
            "$TOKEN_DER": es256("KEY0000001", "TEAM000001", now - 60, main, der: true),
            // PyAPNs2 signs `iat = time.time()`: a fractional NumericDate (RFC 7519).
            "$TOKEN_FRACTIONAL_IAT": jwt(#"{"alg":"ES256","kid":"KEY0000001"}"#, #"{"iss":"TEAM000001","iat":\#(now - 60).67}"#, main),
            "$TOKEN_EXPONENT_IAT": jwt(#"{"alg":"ES256","kid":"KEY0000001"}"#, #"{"iss":"TEAM000001","iat":\#(Double(now - 60) / 1e9)e9}"#, main),
            "$TOKEN_FRACTIONAL_EXPIRED": jwt(#"{"alg":"ES256","kid":"KEY0000001"}"#, #"{"iss":"TEAM000001","iat":\#(now - 3601).25}"#, main),
            "$TOKEN_FRACTIONAL_STRING_IAT": jwt(#"{"alg":"ES256","kid":"KEY0000001"}"#, #"{"iss":"TEAM000001","iat":"\#(now - 60).67"}"#, main),
            "$TOKEN_NEGATIVE_IAT": jwt(#"{"alg":"ES256","kid":"KEY0000001"}"#, #"{"iss":"TEAM000001","iat":-60.5}"#, main),
            "$TOKEN_ABSURD_IAT": jwt(#"{"alg":"ES256","kid":"KEY0000001"}"#, #"{"iss":"TEAM000001","iat":1e300}"#, main),
            "$TOKEN_NAN_IAT": jwt(#"{"alg":"ES256","kid":"KEY0000001"}"#, #"{"iss":"TEAM000001","iat":"NaN"}"#, main),
            "$TOKEN_EXPIRED": es256("KEY0000001", "TEAM000001", now - 3601, main),
            "$TOKEN_FUTURE": es256("KEY0000001", "TEAM000001", now + 7200, main),
            "$TOKEN_UNKNOWN_KEY": es256("NOSUCHKEY1", "TEAM000001", now - 60, main),
            "$TOKEN_BAD_SIGNATURE": es256("KEY0000001", "TEAM000001", now - 60, stranger),
            "$TOKEN_WRONG_ISS": es256("KEY0000001", "TEAM000002", now - 60, main),
            "$TOKEN_HS256": jwt(#"{"alg":"HS256","kid":"KEY0000001"}"#, #"{"iss":"TEAM000001","iat":\#(now - 60)}"#, main),
            "$TOKEN_PRODUCTION_KEY": es256("KEYPROD001", "TEAM000001", now - 60, production),
            "$TOKEN_OTHER_TEAM": es256("KEYOTHER01", "TEAM000002", now - 60, other),
            "$TOKEN_SECOND_KEY": es256("KEY0000002", "TEAM000001", now - 60, second),
            "$TOKEN_NEW_IAT": es256("KEY0000001", "TEAM000001", now - 30, main),
            "$TOKEN_TOPIC_KEY": es256("KEYTOPIC01", "TEAM000001", now - 60, topic),
            "$TOKEN": es256("KEY0000001", "TEAM000001", now - 60, main),
        ]
    }

    /// Replaces placeholders (longest first, so `$TOKEN` does not eat `$TOKEN_DER`).
    func expand(_ text: String) -> String {
        var result = text
        for (placeholder, token) in tokens.sorted(by: { $0.key.count > $1.key.count }) {
            result = result.replacingOccurrences(of: placeholder, with: token)
        }
        return result
    }

    /// `$NOW-60` style times.
    func time(_ text: String) -> Int64 {
        if text.hasPrefix("$NOW") {
            return APNSFixtureTests.now + (Int64(text.dropFirst(4)) ?? 0)
        }
        return Int64(text)!
    }
}
