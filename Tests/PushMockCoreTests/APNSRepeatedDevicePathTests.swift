import Crypto
import PushMockCore
import Testing

/// A connection's pushes to the device of its last push reuse how that path was read (its shape
/// and token); every other path is read afresh, whatever came before it on the connection.
@Suite("APNs: the connection's last device path again")
struct APNSRepeatedDevicePathTests {
    static let issuedAt: Int64 = 1_767_225_600
    let key = P256.Signing.PrivateKey()
    let validator: APNSValidator

    init() {
        var registry = APNSCredentialRegistry()
        registry.add(APNSSigningKey(keyID: "KEY0000001", teamID: "TEAM000001", publicKey: key.publicKey))
        registry.addBundle("com.example.app", team: "TEAM000001")
        validator = APNSValidator(tokens: ProviderTokenVerifier(registry: registry), devices: DeviceRegistry())
    }

    /// The device token recorded for a push to `path` on the connection `auth`, or its rejection.
    func judge(_ path: String, _ auth: inout APNSConnectionAuth) throws -> String {
        let jwt = try ProviderToken.sign(keyID: "KEY0000001", teamID: "TEAM000001", issuedAt: Self.issuedAt, key: key)
        let request = APNSRequest(
            method: "POST", path: path,
            headers: [
                HeaderField(name: "apns-topic", value: "com.example.app"), HeaderField(name: "apns-push-type", value: "alert"),
                HeaderField(name: "authorization", value: "bearer " + jwt),
            ],
            body: Array(#"{"aps":{"alert":"hi"}}"#.utf8), environment: .sandbox)
        var ids = IDGenerator(seed: 1)
        var verdict = APNSVerdict()
        let now = PushInstant(secondsSinceEpoch: Self.issuedAt + 5)
        validator.validate(request, credential: .token, auth: &auth, now: now, ids: &ids, into: &verdict)
        return verdict.rejection.map { "\($0.reason) (token \(verdict.deviceToken ?? "none"))" } ?? verdict.deviceToken ?? "no token"
    }

    @Test("each push gets its own path's token and judgement, alternating devices, bad paths and the same path again")
    func eachPathItsOwn() throws {
        let first = String(repeating: "a1", count: 32)
        let second = String(repeating: "b2", count: 32)
        var auth = APNSConnectionAuth()
        let sequence: [(path: String, expected: String)] = [
            ("/3/device/\(first)", first),
            ("/3/device/\(first)", first),
            // The same length, other bytes: never taken for the last one.
            ("/3/device/\(second)", second),
            ("/3/device/\(first)", first),
            ("/3/device/\(first.dropLast())", "BadDeviceToken (token \(first.dropLast()))"),
            ("/3/device/\(first.dropLast())", "BadDeviceToken (token \(first.dropLast()))"),
            ("/3/device/", "MissingDeviceToken (token none)"),
            ("/3/devices/\(first)", "BadPath (token none)"),
            // Built afresh: equal bytes in another string are the same path.
            (["/3/device/", second].joined(), second),
            ("/3/device/\(second)", second),
        ]
        for (index, step) in sequence.enumerated() {
            #expect(try judge(step.path, &auth) == step.expected, "push \(index + 1): \(step.path)")
        }
    }
}
