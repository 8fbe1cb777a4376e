import Crypto
import PushMockCore
import Testing

/// A connection's next push reuses how its last device path and its last header values were read;
/// anything else is read afresh, whatever came before it on the connection.
@Suite("APNs: what a connection's last push was read as, again")
struct APNSConnectionReadingTests {
    static let issuedAt: Int64 = 1_767_225_600
    let key = P256.Signing.PrivateKey()
    let validator: APNSValidator

    init() {
        var registry = APNSCredentialRegistry()
        registry.add(APNSSigningKey(keyID: "KEY0000001", teamID: "TEAM000001", publicKey: key.publicKey))
        registry.addBundle("com.example.app", team: "TEAM000001")
        validator = APNSValidator(tokens: ProviderTokenVerifier(registry: registry), devices: DeviceRegistry())
    }

    /// The verdict on a push to `path` with `headers` (an alert to com.example.app unless they say
    /// otherwise) on the connection `auth`.
    func verdict(
        _ path: String = "/3/device/" + String(repeating: "a1", count: 32), headers: [(String, String)] = [], _ auth: inout APNSConnectionAuth
    ) throws -> APNSVerdict {
        let jwt = try ProviderToken.sign(keyID: "KEY0000001", teamID: "TEAM000001", issuedAt: Self.issuedAt, key: key)
        let given = headers.isEmpty ? [("apns-topic", "com.example.app"), ("apns-push-type", "alert")] : headers
        let request = APNSRequest(
            method: "POST", path: path, headers: (given + [("authorization", "bearer " + jwt)]).map { HeaderField(name: $0.0, value: $0.1) },
            body: Array(#"{"aps":{"alert":"hi"}}"#.utf8), environment: .sandbox)
        var ids = IDGenerator(seed: 1)
        var verdict = APNSVerdict()
        let now = PushInstant(secondsSinceEpoch: Self.issuedAt + 5)
        validator.validate(request, credential: .token, auth: &auth, now: now, ids: &ids, into: &verdict)
        return verdict
    }

    /// The device token recorded for a push to `path` on the connection `auth`, or its rejection.
    func judge(_ path: String, _ auth: inout APNSConnectionAuth) throws -> String {
        let verdict = try verdict(path, &auth)
        return verdict.rejection.map { "\($0.reason) (token \(verdict.deviceToken ?? "none"))" } ?? verdict.deviceToken ?? "no token"
    }

    /// What a push with `headers` on the connection `auth` is read as: its rejection, or its
    /// priority, expiration, collapse id, topic, push type and bundle id.
    func reading(_ headers: [(String, String)], _ auth: inout APNSConnectionAuth) throws -> String {
        let verdict = try verdict(headers: headers, &auth)
        if let rejection = verdict.rejection { return rejection.reason }
        return [
            "priority \(verdict.priority.map(String.init) ?? "-")", "expiration \(verdict.expiration.map(String.init) ?? "-")",
            "collapse \(verdict.collapseID ?? "-")", "topic \(verdict.topic ?? "-")", "type \(verdict.pushType?.rawValue ?? "-")",
            "bundle \(verdict.bundleID ?? "-")",
        ].joined(separator: ", ")
    }

    @Test("each push gets its own header values' reading: the same values again, one value changed, refused values and absent ones")
    func eachHeaderReadingItsOwn() throws {
        let topic = ("apns-topic", "com.example.app")
        let alert = ("apns-push-type", "alert")
        let voip = ("apns-push-type", "voip")
        var auth = APNSConnectionAuth()
        let sequence: [(headers: [(String, String)], expected: String)] = [
            (
                [topic, alert, ("apns-priority", "10")],
                "priority 10, expiration -, collapse -, topic com.example.app, type alert, bundle com.example.app"
            ),
            (
                [topic, alert, ("apns-priority", "10")],
                "priority 10, expiration -, collapse -, topic com.example.app, type alert, bundle com.example.app"
            ),
            (
                [topic, alert, ("apns-priority", "5")],
                "priority 5, expiration -, collapse -, topic com.example.app, type alert, bundle com.example.app"
            ),
            ([topic, alert, ("apns-priority", "7")], "BadPriority"),
            (
                [topic, alert, ("apns-priority", "10")],
                "priority 10, expiration -, collapse -, topic com.example.app, type alert, bundle com.example.app"
            ),
            ([topic, ("apns-push-type", "background"), ("apns-priority", "10")], "BadPriority"),
            (
                [("apns-topic", "com.example.app.voip"), voip],
                "priority 10, expiration -, collapse -, topic com.example.app.voip, type voip, bundle com.example.app"
            ),
            (
                [("apns-topic", "com.example.app.voip"), voip],
                "priority 10, expiration -, collapse -, topic com.example.app.voip, type voip, bundle com.example.app"
            ),
            // The same push type with a topic that lacks its suffix: the last topic's bundle is not taken.
            ([topic, voip], "BadTopic"),
            ([topic, voip], "BadTopic"),
            ([topic, alert, ("apns-expiration", "abc")], "BadExpirationDate"),
            (
                [topic, alert, ("apns-expiration", "0")],
                "priority 10, expiration 0, collapse -, topic com.example.app, type alert, bundle com.example.app"
            ),
            (
                [topic, alert, ("apns-expiration", "0")],
                "priority 10, expiration 0, collapse -, topic com.example.app, type alert, bundle com.example.app"
            ),
            ([topic, alert], "priority 10, expiration -, collapse -, topic com.example.app, type alert, bundle com.example.app"),
            ([topic, alert, ("apns-collapse-id", String(repeating: "c", count: 65))], "BadCollapseId"),
            (
                [topic, alert, ("apns-collapse-id", "c1")],
                "priority 10, expiration -, collapse c1, topic com.example.app, type alert, bundle com.example.app"
            ),
            (
                [topic, alert, ("apns-collapse-id", "c1")],
                "priority 10, expiration -, collapse c1, topic com.example.app, type alert, bundle com.example.app"
            ),
            (
                [topic, alert, ("apns-collapse-id", "c2")],
                "priority 10, expiration -, collapse c2, topic com.example.app, type alert, bundle com.example.app"
            ),
            // No push type: inferred from the topic.
            (
                [("apns-topic", "com.example.app.voip")],
                "priority 10, expiration -, collapse -, topic com.example.app.voip, type voip, bundle com.example.app"
            ),
            ([topic], "priority 10, expiration -, collapse -, topic com.example.app, type alert, bundle com.example.app"),
            ([("apns-topic", "com.example.other")], "TopicDisallowed"),
        ]
        for (index, step) in sequence.enumerated() {
            let read = try reading(step.headers, &auth)
            #expect(read == step.expected, "push \(index + 1): \(step.headers)")
        }
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
