import Foundation
import PushMockCore
import PushMockServer
import PushMockTestSupport
import Testing

@Suite("The configuration file")
final class ConfigurationFileTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The files a test wrote; removed when it ends (Swift Testing makes an instance per test).
    private var written: [URL] = []

    deinit {
        for url in written { try? FileManager.default.removeItem(at: url) }
    }

    func write(_ text: String) throws -> String {
        let url = URL(fileURLWithPath: TestScratch.path("config", extension: "json"))
        try Data(text.utf8).write(to: url)
        written.append(url)
        return url.path
    }

    @Test("Examples/pushmock.json loads, with paths relative to its folder")
    func example() throws {
        var configuration = PushMockConfiguration()
        let path = Self.repository.appendingPathComponent("Examples/pushmock.json").path
        try configuration.load(file: path)
        #expect(configuration.cleartextPort == 2196)
        #expect(configuration.idSeed == 42)
        #expect(configuration.apns.bundles.map(\.bundleID).contains("com.example.other"))
        #expect(configuration.apns.devices.count == 8)
        #expect(configuration.apns.devices.values.contains { $0.lastActiveMilliseconds == 1_700_000_000_000 })
        #expect(configuration.fcm.staleTokenAfter == .seconds(270 * 86_400))
        #expect(configuration.fcm.userClients == OAuthUserClient.defaults)
        #expect(configuration.fcm.refreshTokens == nil, "any real-shaped refresh token")
        #expect(configuration.apns.options.liveActivity.ignoreInputPushOnUpdate == false)
        #expect(configuration.apns.devices.values.contains { $0.liveActivity == .pushToStart(attributesType: "MatchAttributes") })
        #expect(configuration.liveActivityLimits.priorityBudgetPerHour == 600)
        #expect(configuration.liveActivityLimits.endAfterStart == .hours(8))
        #expect(configuration.broadcastChannelLimit == 10_000)
        #expect(configuration.fcm.serviceAccounts.count == 2, "the default sample plus the file's")
        #expect(configuration.faults.map(\.id) == ["busy-device", "flaky"])
        #expect(configuration.faults.first?.action == .reject(status: 429, reason: "TooManyRequests"))
        guard case .files(let certificate, _) = configuration.tls else {
            Issue.record("cert not read")
            return
        }
        #expect(FileManager.default.fileExists(atPath: certificate), "\(certificate) resolved relative to Examples/")
        guard case .file(let key) = configuration.apns.keys.last?.source else {
            Issue.record("key not read")
            return
        }
        #expect(FileManager.default.fileExists(atPath: key))
    }

    @Test("liveActivity's byte limits are read in KiB and MiB, and the timeline's entry count")
    func liveActivityByteLimits() throws {
        var configuration = PushMockConfiguration()
        try configuration.load(file: try write(#"{"liveActivity": {"maxTimeline": 50, "maxTimelineKiB": 64, "maxMemoryMiB": 8}}"#))
        #expect(configuration.liveActivityLimits.maxTimeline == 50)
        #expect(configuration.liveActivityLimits.maxTimelineBytes == 64 * 1024)
        #expect(configuration.liveActivityLimits.maxBytes == 8 * 1024 * 1024)
    }

    @Test("activityTypes as a path names the app's Swift source, relative to the file's folder; neither object nor string is an error")
    func activityTypeSources() throws {
        var configuration = PushMockConfiguration()
        let file = try write(#"{"activityTypes": "MyApp/Widget"}"#)
        try configuration.load(file: file)
        #expect(
            configuration.activityTypeSources == [URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("MyApp/Widget").path])
        #expect(configuration.activityTypes.isEmpty)
        var broken = PushMockConfiguration()
        #expect { try broken.load(file: try write(#"{"activityTypes": 5}"#)) } throws: { "\($0)".contains("the path of the app's Swift source") }
    }

    @Test("liveActivity.presets turns the SDK presets off; they are on by default, under the configured types")
    func activityTypePresets() throws {
        var configuration = PushMockConfiguration()
        #expect(configuration.activityTypePresets)
        #expect(Set(configuration.startingActivityTypes.keys) == Set(ActivityTypePresets.all.map(\.name)))
        try configuration.load(file: try write(#"{"activityTypes": {"LiveActivityAttributes": {"contentState": {"mine": "Int"}}}}"#))
        #expect(configuration.startingActivityTypes["LiveActivityAttributes"]?.preset == nil, "a declared type of the same name wins")
        #expect(configuration.startingActivityTypes["VoltraAttributes"]?.preset == "Voltra (React Native)")
        try configuration.load(file: try write(#"{"liveActivity": {"presets": false}}"#))
        #expect(!configuration.activityTypePresets)
        #expect(Array(configuration.startingActivityTypes.keys) == ["LiveActivityAttributes"])
        var broken = PushMockConfiguration()
        #expect { try broken.load(file: try write(#"{"liveActivity": {"presets": "no"}}"#)) } throws: {
            "\($0)".contains("liveActivity.presets")
        }
    }

    @Test(
        "broken files fail with the file, the path and the reason",
        arguments: [
            (#"{"port": 2197,}"#, "not valid JSON"),
            (#"{"prot": 2197}"#, "prot: unknown key"),
            (#"{"port": "2197"}"#, "port: expected an integer"),
            (#"{"port": 70000}"#, "port: must be between 0 and 65535"),
            (#"{"apns": {"keys": [{"keyId": "K", "teamId": "T", "path": "k.p8"}, {"keyId": "K2"}]}}"#, "apns.keys[1]: keyId and teamId are required"),
            (#"{"apns": {"environment": "staging"}}"#, "apns.environment: must be sandbox or production"),
            (#"{"devices": {"ab": {"state": "unregistered", "unregisteredAt": -1}}}"#, "devices.ab.unregisteredAt: must be between 0"),
            (#"{"devices": {"ab": {"state": null}}}"#, "devices.ab.state: null is not allowed here"),
            (#"{"faults": [{"resetStream": false}]}"#, "faults[0].resetStream: can only be true"),
            (#"{"devices": {"ab": {"liveActivity": "start"}}}"#, "devices.ab.liveActivity: must be pushToStart or activity"),
            (#"{"devices": {"ab": {"attributesType": "T"}}}"#, "devices.ab.attributesType: goes with liveActivity: pushToStart"),
            (#"{"liveActivity": {"priorityBudgetPerHour": 0}}"#, "liveActivity.priorityBudgetPerHour: must be between 1"),
            (#"{"liveActivity": {"maxTimelineKiB": 0}}"#, "liveActivity.maxTimelineKiB: must be between 1"),
            (#"{"liveActivity": {"maxMemoryMiB": 70000}}"#, "liveActivity.maxMemoryMiB: must be between 1"),
            // Regression: 1e300 hours trapped converting to milliseconds; 0 and negatives were ignored.
            (#"{"liveActivity": {"endAfterHours": 1e300}}"#, "liveActivity.endAfterHours: must be a number from"),
            (#"{"liveActivity": {"removeAfterHours": -1}}"#, "liveActivity.removeAfterHours: must be a number from"),
            (#"{"faults": [{"id": "a b", "resetStream": true}]}"#, "faults[0].id: must be letters, digits"),
            (#"{"faults": [{"match": {"service": "apn"}, "resetStream": true}]}"#, "faults[0].match.service: must be one of apns"),
            (#"{"fcm": {"tokenPath": "token"}}"#, "fcm.tokenPath: must start with /"),
            (#"{"fcm": {"staleTokenDays": 40000}}"#, "fcm.staleTokenDays: must be between 0"),
            (#"{"fcm": {"userCredentials": {"clients": [{"clientId": ""}]}}}"#, "clientId: is required"),
            (#"{"fcm": {"userCredentials": {"refreshTokens": "1//x"}}}"#, "refreshTokens: expected an array of strings"),
            (#"{"metadataPort": 70000}"#, "metadataPort: must be between 0 and 65535"),
            (#"{"devices": {"ab": {"lastActiveAt": -5}}}"#, "devices.ab.lastActiveAt: must be between 0"),
            (#"{"faults": [{"match": {"service": "apns"}}]}"#, "faults[0]: exactly one action"),
            (#"{"faults": [{"reject": {"reason": "Teapot"}}]}"#, "status is required"),
            (#"{"mode": "fast"}"#, "mode: must be one of"),
            (#"{"cert": "a.pem"}"#, "key: cert and key go together"),
            (#"[1, 2]"#, "expected an object"),
        ])
    func broken(_ text: String, _ expected: String) throws {
        let path = try write(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = PushMockConfiguration()
        let error = #expect(throws: PushMockError.self) { try configuration.load(file: path) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.hasPrefix(path) == true, "names the file: \(error?.message ?? "")")
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "") should mention \(expected)")
    }

    @Test("a missing file is a clear error")
    func missing() {
        var configuration = PushMockConfiguration()
        let error = #expect(throws: PushMockError.self) { try configuration.load(file: "/nonexistent/pushmock.json") }
        #expect(error?.message.contains("cannot read") == true)
    }

    @Test("a server started from the example file serves what it says")
    func serveFromFile() async throws {
        var configuration = PushMockConfiguration()
        try configuration.load(file: Self.repository.appendingPathComponent("Examples/pushmock.json").path)
        configuration.pushPort = 0
        configuration.cleartextPort = 0
        configuration.inspectionPort = 0
        let server = try await PushMockServer.start(configuration: configuration)
        defer { Task { await server.shutdown() } }
        #expect(server.devices.record(for: "0000000000000000000000000000000000000000000000000000000000000411")?.state == .expired)
        #expect(server.faults.rules.count == 2)
        #expect(server.tokens.registry.team(ofBundle: "com.example.other") == "PMTEAM0001")
        await server.shutdown()
    }
}
