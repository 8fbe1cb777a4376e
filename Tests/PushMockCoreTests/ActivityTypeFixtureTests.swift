import Foundation
import PushMockCore
import Testing

/// Table-driven tests of declared activity types over `Fixtures/activity-types/*.json`: each file
/// has a declaration, a push (`aps` members) and the failure (JSON path and reason) or the
/// diagnostics expected; each runs through the APNs validator under both profiles.
@Suite("Declared activity types decode as the device decodes, fixture by fixture")
struct ActivityTypeFixtureTests {
    static let now: Int64 = 1_767_225_600  // 2026-01-01T00:00:00Z
    static let token = String(repeating: "cd", count: 80)

    static let fixtures: [String] = {
        let directory = Bundle.module.url(forResource: "Fixtures/activity-types", withExtension: nil)!
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }()

    @Test("every fixture, under the strict and the apple profile", arguments: fixtures, LiveActivityProfile.allCases)
    func fixture(_ name: String, _ profile: LiveActivityProfile) throws {
        let url = Bundle.module.url(forResource: "Fixtures/activity-types/\(name)", withExtension: "json")!
        let data = try Data(contentsOf: url)
        let fixture = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let declarationJSON = try #require(JSONValue.parse(Array(try JSONSerialization.data(withJSONObject: fixture["declaration"]!))))
        let types = ActivityTypeRegistry(["OrderAttributes": try ActivityTypeDeclaration(json: declarationJSON)])
        var aps = try #require(fixture["push"] as? [String: Any])
        aps["timestamp"] = Self.now
        if aps["event"] as? String == "start" {
            aps["attributes-type"] = "OrderAttributes"
            aps["alert"] = ["title": "Order", "body": "On its way"]
            aps["attributes"] = aps["attributes"] ?? ["orderID": "A1"]
        } else {
            types.bind(activityToken: Self.token, to: "OrderAttributes")
        }
        var options = APNSValidationOptions()
        options.liveActivity.profile = profile
        let validator = APNSValidator(options: options, tokens: TestKeys.shared.verifier, devices: DeviceRegistry(), activityTypes: types)
        let request = APNSRequest(
            method: "POST", path: "/3/device/\(Self.token)",
            headers: [
                HeaderField(name: "authorization", value: TestKeys.shared.expand("bearer $TOKEN")),
                HeaderField(name: "apns-topic", value: "com.example.app.push-type.liveactivity"),
                HeaderField(name: "apns-push-type", value: "liveactivity"),
            ],
            body: Array(try JSONSerialization.data(withJSONObject: ["aps": aps])), environment: .sandbox
        )
        var auth = APNSConnectionAuth()
        var ids = IDGenerator(seed: 1)
        let verdict = validator.validate(request, credential: .token, auth: &auth, now: PushInstant(secondsSinceEpoch: Self.now), ids: &ids)

        if let failure = fixture["failure"] as? String {
            let reason = try #require(fixture["reason"] as? String)
            switch profile {
            case .strict:
                #expect(verdict.rejection?.status == 400, "\(name)")
                #expect(verdict.rejection?.reason == reason, "\(name): \(verdict.explanation ?? "")")
            case .apple:
                #expect(verdict.rejection == nil, "\(name): 200 on the wire")
                #expect(verdict.droppedByDevice, "\(name): dropped by the device")
                #expect(verdict.liveActivityRule?.reason == reason)
            }
            #expect(verdict.explanation?.hasPrefix(failure) == true, "\(name): \(verdict.explanation ?? "no explanation")")
        } else {
            #expect(verdict.rejection == nil, "\(name): \(verdict.explanation ?? "")")
            #expect(!verdict.droppedByDevice, "\(name): \(verdict.explanation ?? "")")
            for diagnostic in fixture["diagnostics"] as? [String] ?? [] {
                #expect(verdict.diagnostics.contains(diagnostic), "\(name): \(verdict.diagnostics)")
            }
            #expect(verdict.liveActivityPush?.decodedContentState != nil, "\(name): the decoded state is kept")
        }
    }

    @Test(
        "declarations that cannot be used are refused with the path of the problem",
        arguments: [
            (#"{"contentState": {"eta": "Instant"}}"#, "contentState.eta"),
            (#"{"contentState": {"x": "[Int: [Nope]]"}}"#, "contentState.x"),
            (#"{"contentState": {"x": 5}}"#, "contentState.x"),
            (#"{"types": {"Stage": {"enum": "Double", "cases": [1]}}}"#, "types.Stage.enum"),
            (#"{"types": {"Stage": {"enum": "String", "cases": []}}}"#, "types.Stage.cases"),
            (#"{"contentState": {"k": "[Bool: Int]"}}"#, "contentState.k"),
            (#"{"state": {}}"#, "state"),
        ])
    func badDeclarations(_ json: String, _ path: String) {
        #expect(throws: ActivityTypeDeclaration.Problem.self) { try ActivityTypeDeclaration(json: JSONValue.parse(Array(json.utf8))!) }
        do {
            _ = try ActivityTypeDeclaration(json: JSONValue.parse(Array(json.utf8))!)
        } catch {
            #expect(error.path == path, "\(json): \(error)")
        }
    }

    @Test("type texts are read in one pass: nesting past 16 and texts past 256 characters are refused by name, the rest as before")
    func typeTexts() throws {
        let read: [(String, String)] = [
            ("Int", "Int"), (" Int ?", "Int?"), ("Int??", "Int??"), ("[Int]?", "[Int]?"), ("[Int?]", "[Int?]"),
            ("[ String : [Stop] ]?", "[String: [Stop]]?"), ("[Int: [String: Double]]", "[Int: [String: Double]]"), ("CGFloat", "Double"),
        ]
        for (text, shown) in read {
            #expect(try ActivityTypeDeclaration.parse(text, path: "x").description == shown, "\(text)")
        }
        for text in ["", "[", "[Int", "Int]", "[Int:]", "[: Int]", "int", "Int Int", "[Int][Int]", "?", "[Stop: Int]"] {
            #expect(throws: ActivityTypeDeclaration.Problem.self, "\(text)") { try ActivityTypeDeclaration.parse(text, path: "x") }
        }
        let deepest = String(repeating: "[", count: 16) + "Int" + String(repeating: "]", count: 16)
        #expect(try ActivityTypeDeclaration.parse(deepest, path: "x").description == deepest)
        let tooDeep = "[" + deepest + "]"
        let depthError = #expect(throws: ActivityTypeDeclaration.Problem.self) { try ActivityTypeDeclaration.parse(tooDeep, path: "contentState.x") }
        #expect(depthError?.description == "contentState.x: a type nests at most 16 brackets and optionals deep")
        #expect(throws: ActivityTypeDeclaration.Problem.self) {
            try ActivityTypeDeclaration.parse("Int" + String(repeating: "?", count: 17), path: "x")
        }
        // The attack: 20 KB of brackets took 35 s (each level copied the rest); now refused unread.
        let attack = String(repeating: "[", count: 10_000) + "Int" + String(repeating: "]", count: 10_000)
        let sizeError = #expect(throws: ActivityTypeDeclaration.Problem.self) {
            try ActivityTypeDeclaration(json: JSONValue.parse(Array(#"{"contentState": {"x": "\#(attack)"}}"#.utf8))!)
        }
        #expect(sizeError?.description == "contentState.x: a type is at most 256 characters, got 20003")
    }

    @Test("an undeclared type is not checked, and costs nothing")
    func undeclared() {
        let types = ActivityTypeRegistry()
        let push = LiveActivityPush(payload: JSONValue.parse(Array(#"{"aps":{"event":"update","content-state":{"s":null}}}"#.utf8))!, priority: 10)!
        let finding = types.check(push, token: "ab", now: .epoch)
        #expect(finding.typeName == nil)
        #expect(finding.violation == nil)
        #expect(finding.decodedContentState == nil)
    }
}
