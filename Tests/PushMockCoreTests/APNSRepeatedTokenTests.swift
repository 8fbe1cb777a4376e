import Crypto
import PushMockCore
import Testing

/// A connection's last accepted token skips verification when it comes again: only its age is
/// checked then. Everything else that could make it fail must still make it fail.
@Suite("APNs: the connection's last accepted token again")
struct APNSRepeatedTokenTests {
    static let issuedAt: Int64 = 1_767_225_600
    let key = P256.Signing.PrivateKey()
    let productionKey = P256.Signing.PrivateKey()
    let verifier: ProviderTokenVerifier
    let validator: APNSValidator

    init() {
        var registry = APNSCredentialRegistry()
        registry.add(APNSSigningKey(keyID: "KEY0000001", teamID: "TEAM000001", publicKey: key.publicKey))
        registry.add(APNSSigningKey(keyID: "KEYPROD001", teamID: "TEAM000001", publicKey: productionKey.publicKey, scope: .production))
        registry.addBundle("com.example.app", team: "TEAM000001")
        verifier = ProviderTokenVerifier(registry: registry)
        validator = APNSValidator(tokens: verifier, devices: DeviceRegistry())
    }

    func push(_ jwt: String, environment: APNSEnvironment = .sandbox) -> APNSRequest {
        APNSRequest(
            method: "POST",
            path: "/3/device/" + String(repeating: "a1", count: 32),
            headers: [
                HeaderField(name: "apns-topic", value: "com.example.app"),
                HeaderField(name: "apns-push-type", value: "alert"),
                HeaderField(name: "authorization", value: "bearer " + jwt),
            ],
            body: Array(#"{"aps":{"alert":"hi"}}"#.utf8),
            environment: environment
        )
    }

    func judge(_ request: APNSRequest, _ auth: inout APNSConnectionAuth, at seconds: Int64) -> String {
        var ids = IDGenerator(seed: 1)
        var verdict = APNSVerdict()
        validator.validate(request, credential: .token, auth: &auth, now: PushInstant(secondsSinceEpoch: seconds), ids: &ids, into: &verdict)
        return verdict.rejection?.reason ?? (verdict.authenticated ? "accepted as \(verdict.identity ?? "nobody")" : "not authenticated")
    }

    @Test("it is accepted again with the same identity, and expires at the same age as a fresh one")
    func ageStillChecked() throws {
        let jwt = try ProviderToken.sign(keyID: "KEY0000001", teamID: "TEAM000001", issuedAt: Self.issuedAt, key: key)
        var auth = APNSConnectionAuth()
        #expect(judge(push(jwt), &auth, at: Self.issuedAt + 10) == "accepted as TEAM000001/KEY0000001")
        #expect(auth.acceptedToken?.issuedAt == Self.issuedAt, "the accepted token is remembered")
        #expect(judge(push(jwt), &auth, at: Self.issuedAt + 3600) == "accepted as TEAM000001/KEY0000001")
        #expect(judge(push(jwt), &auth, at: Self.issuedAt + 3601) == "ExpiredProviderToken")
        // A clock that went back past the tolerance: the token is from the future.
        var fresh = APNSConnectionAuth()
        #expect(judge(push(jwt), &fresh, at: Self.issuedAt) == "accepted as TEAM000001/KEY0000001")
        #expect(judge(push(jwt), &fresh, at: Self.issuedAt - 3601) == "InvalidProviderToken")
    }

    @Test("a configured token lifetime and future tolerance bound a fresh and a repeated token alike")
    func configuredBounds() throws {
        var options = APNSValidationOptions()
        options.tokenLifetime = .seconds(60)
        options.futureIssuedAtTolerance = .seconds(30)
        let validator = APNSValidator(options: options, tokens: verifier, devices: DeviceRegistry())
        func judge(_ jwt: String, _ auth: inout APNSConnectionAuth, at seconds: Int64) -> String {
            var ids = IDGenerator(seed: 1)
            var verdict = APNSVerdict()
            validator.validate(push(jwt), credential: .token, auth: &auth, now: PushInstant(secondsSinceEpoch: seconds), ids: &ids, into: &verdict)
            return verdict.rejection?.reason ?? "accepted"
        }
        let jwt = try ProviderToken.sign(keyID: "KEY0000001", teamID: "TEAM000001", issuedAt: Self.issuedAt, key: key)
        var repeated = APNSConnectionAuth()
        #expect(judge(jwt, &repeated, at: Self.issuedAt) == "accepted")
        #expect(judge(jwt, &repeated, at: Self.issuedAt + 60) == "accepted")
        #expect(judge(jwt, &repeated, at: Self.issuedAt + 61) == "ExpiredProviderToken")
        var fresh = APNSConnectionAuth()
        #expect(judge(jwt, &fresh, at: Self.issuedAt + 61) == "ExpiredProviderToken")
        var early = APNSConnectionAuth()
        #expect(judge(jwt, &early, at: Self.issuedAt - 30) == "accepted")
        #expect(judge(jwt, &early, at: Self.issuedAt - 31) == "InvalidProviderToken", "the repeated token, 31 s before its iat")
        var future = APNSConnectionAuth()
        #expect(judge(jwt, &future, at: Self.issuedAt - 31) == "InvalidProviderToken", "a fresh token, 31 s before its iat")
    }

    @Test("a registry change makes it go through verification again")
    func registryChange() throws {
        let jwt = try ProviderToken.sign(keyID: "KEY0000001", teamID: "TEAM000001", issuedAt: Self.issuedAt, key: key)
        var auth = APNSConnectionAuth()
        #expect(judge(push(jwt), &auth, at: Self.issuedAt + 10) == "accepted as TEAM000001/KEY0000001")
        verifier.update { registry in
            var withoutTheKey = APNSCredentialRegistry()
            withoutTheKey.addBundle("com.example.app", team: "TEAM000001")
            registry = withoutTheKey
        }
        #expect(judge(push(jwt), &auth, at: Self.issuedAt + 20) == "InvalidProviderToken")
    }

    @Test("another environment makes it go through the key's scope again")
    func otherEnvironment() throws {
        let jwt = try ProviderToken.sign(keyID: "KEYPROD001", teamID: "TEAM000001", issuedAt: Self.issuedAt, key: productionKey)
        var auth = APNSConnectionAuth()
        #expect(judge(push(jwt, environment: .production), &auth, at: Self.issuedAt + 10) == "accepted as TEAM000001/KEYPROD001")
        #expect(judge(push(jwt, environment: .sandbox), &auth, at: Self.issuedAt + 20) == "BadEnvironmentKeyInToken")
        #expect(judge(push(jwt, environment: .production), &auth, at: Self.issuedAt + 30) == "accepted as TEAM000001/KEYPROD001")
    }

    @Test("after another token was accepted, the first one is a new token again (the 20-minute rule)")
    func replacedToken() throws {
        let first = try ProviderToken.sign(keyID: "KEY0000001", teamID: "TEAM000001", issuedAt: Self.issuedAt, key: key)
        let second = try ProviderToken.sign(keyID: "KEY0000001", teamID: "TEAM000001", issuedAt: Self.issuedAt + 1500, key: key)
        var auth = APNSConnectionAuth()
        #expect(judge(push(first), &auth, at: Self.issuedAt + 10) == "accepted as TEAM000001/KEY0000001")
        #expect(judge(push(second), &auth, at: Self.issuedAt + 1500) == "accepted as TEAM000001/KEY0000001")
        #expect(judge(push(first), &auth, at: Self.issuedAt + 1510) == "TooManyProviderTokenUpdates")
    }
}

@Suite("APNs: the push type a topic implies")
struct APNSTopicInferenceTests {
    @Test(
        "each suffix names its push type and leaves the bundle id; a bare bundle id, or a suffix alone, is an alert topic",
        arguments: [
            ("com.example.app", "alert", "com.example.app"),
            ("com.example.app.voip", "voip", "com.example.app"),
            ("com.example.app.voip-ptt", "pushtotalk", "com.example.app"),
            ("com.example.app.complication", "complication", "com.example.app"),
            ("com.example.app.pushkit.fileprovider", "fileprovider", "com.example.app"),
            ("com.example.app.location-query", "location", "com.example.app"),
            ("com.example.app.push-type.liveactivity", "liveactivity", "com.example.app"),
            ("com.example.app.push-type.widgets", "widgets", "com.example.app"),
            ("com.example.app.push-type.controls", "controls", "com.example.app"),
            (".voip", "alert", ".voip"),
            ("com.example.voipapp", "alert", "com.example.voipapp"),
            ("x.voip", "voip", "x"),
            ("", "alert", ""),
            ("com.example.app.xvoip", "alert", "com.example.app.xvoip"),
            ("com.example.app.push-type.controlz", "alert", "com.example.app.push-type.controlz"),
        ])
    func inferred(_ topic: String, _ pushType: String, _ bundleID: String) {
        let inferred = APNSPushType.inferred(fromTopic: topic)
        #expect(inferred.pushType.rawValue == pushType)
        #expect(inferred.bundleID == bundleID)
    }
}
