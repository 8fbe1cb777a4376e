import PushMockCore
import Testing

@Suite("The types popular SDKs define are checked without a declaration, with pushes shaped as each SDK's backend sends them")
struct ActivityTypePresetTests {
    static let now = PushInstant(millisecondsSinceEpoch: 1_767_225_600_000)
    static let s0 = now.millisecondsSinceEpoch / 1000

    /// One push and the field path it must be refused at (nil: it decodes).
    struct Case: Sendable, CustomStringConvertible {
        var sdk: String
        var aps: String
        var refusedAt: String?
        var description: String { "\(sdk): \(refusedAt ?? "decodes")" }
    }

    static func start(_ type: String, attributes: String, state: String) -> String {
        #""event":"start","timestamp":\#(s0),"attributes-type":"\#(type)","attributes":\#(attributes),"content-state":\#(state),"alert":{"title":"t","body":"b"}"#
    }

    static let cases: [Case] = [
        // Flutter live_activities: the plugin's ContentState carries only the App Group id; the
        // data itself travels through the group's UserDefaults.
        Case(
            sdk: "Flutter",
            aps: start(
                "LiveActivitiesAppAttributes", attributes: #"{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF"}"#,
                state: #"{"appGroupId":"group.com.example.app"}"#)),
        Case(
            sdk: "Flutter",
            aps: start("LiveActivitiesAppAttributes", attributes: #"{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF"}"#, state: #"{"score":"1-0"}"#),
            refusedAt: "content-state.appGroupId"),
        Case(
            sdk: "Flutter", aps: start("LiveActivitiesAppAttributes", attributes: #"{}"#, state: #"{"appGroupId":"group.com.example.app"}"#),
            refusedAt: "attributes.id"),
        Case(
            sdk: "Flutter",
            aps: start("LiveActivitiesAppAttributes", attributes: #"{"id":"order-1"}"#, state: #"{"appGroupId":"group.com.example.app"}"#),
            refusedAt: "attributes.id"),
        // expo-live-activity
        Case(
            sdk: "expo",
            aps: start(
                "LiveActivityAttributes",
                attributes: #"{"name":"Order","backgroundColor":"001122","timerType":"circular","paddingDetails":{"top":8}}"#,
                state: #"{"title":"On the way","subtitle":"5 min","progress":0.5,"timerEndDateInMilliseconds":1767226200000}"#)),
        Case(
            sdk: "expo", aps: start("LiveActivityAttributes", attributes: #"{"name":"Order"}"#, state: #"{"subtitle":"5 min"}"#),
            refusedAt: "content-state.title"),
        Case(
            sdk: "expo", aps: start("LiveActivityAttributes", attributes: #"{"name":"Order","timerType":"bar"}"#, state: #"{"title":"t"}"#),
            refusedAt: "attributes.timerType"),
        Case(
            sdk: "expo", aps: start("LiveActivityAttributes", attributes: #"{"name":"Order"}"#, state: #"{"title":"t","currentStep":"2"}"#),
            refusedAt: "content-state.currentStep"),
        // Voltra (React Native)
        Case(sdk: "Voltra", aps: start("VoltraAttributes", attributes: #"{"name":"delivery"}"#, state: #"{"uiJsonData":"G0sAAIyUq4N0Aw=="}"#)),
        Case(
            sdk: "Voltra", aps: start("VoltraAttributes", attributes: #"{"name":"delivery"}"#, state: #"{"ui":{"type":"Text"}}"#),
            refusedAt: "content-state.uiJsonData"),
        // OneSignal's DefaultLiveActivityAttributes: everything under data, the SDK's own keys under onesignal.
        Case(
            sdk: "OneSignal",
            aps: start(
                "DefaultLiveActivityAttributes", attributes: #"{"data":{"order":"A1"},"onesignal":{"activityId":"order-A1"}}"#,
                state: #"{"data":{"stage":"preparing","eta":12}}"#)),
        Case(
            sdk: "OneSignal",
            aps: #""event":"update","timestamp":\#(s0),"content-state":{"data":{"stage":"ready"},"onesignal":{"notificationId":"5b1e"}}"#),
        Case(
            sdk: "OneSignal", aps: start("DefaultLiveActivityAttributes", attributes: #"{"data":{"order":"A1"}}"#, state: #"{"data":{}}"#),
            refusedAt: "attributes.onesignal"),
        Case(
            sdk: "OneSignal",
            aps: start("DefaultLiveActivityAttributes", attributes: #"{"data":{},"onesignal":{"activityId":"x"}}"#, state: #"{"stage":"ready"}"#),
            refusedAt: "content-state.data"),
    ]

    static func push(_ aps: String) -> LiveActivityPush {
        LiveActivityPush(payload: JSONValue.parse(Array(#"{"aps":{\#(aps)}}"#.utf8))!, priority: 10)!
    }

    @Test("each SDK's push gets the verdict its app would give it", arguments: cases)
    func verdicts(_ example: Case) throws {
        let registry = ActivityTypeRegistry(ActivityTypePresets.declarations)
        let activityToken = String(repeating: "ab", count: 80)
        // An update is checked against the type its activity was started as.
        registry.bind(activityToken: activityToken, to: "DefaultLiveActivityAttributes")
        let finding = registry.check(Self.push(example.aps), token: activityToken, now: Self.now)
        #expect(finding.typeName != nil, "the preset is found by its name")
        if let path = example.refusedAt {
            let violation = try #require(finding.violation)
            #expect(violation.explanation.hasPrefix(path), "\(violation.explanation)")
            #expect(
                violation.explanation.contains(
                    "as the \(ActivityTypePresets.all.first { $0.name == finding.typeName }!.sdk) SDK defines it; declare your own"),
                "\(violation.explanation)")
        } else {
            #expect(finding.violation == nil, "\(String(describing: finding.violation))")
        }
    }

    @Test("every preset reads as a declaration, names its SDK and source, and covers each SDK the docs list")
    func presets() {
        #expect(
            ActivityTypePresets.all.map(\.name) == [
                "LiveActivitiesAppAttributes", "LiveActivityAttributes", "VoltraAttributes", "DefaultLiveActivityAttributes",
            ])
        for preset in ActivityTypePresets.all {
            #expect(preset.declaration.preset == preset.sdk)
            #expect(preset.declaration.origin?.contains(preset.source) == true)
            #expect(preset.source.contains("/") && preset.source.contains(".swift"), "cites a repository file: \(preset.source)")
        }
        #expect(
            ActivityTypePresets.preset(named: "LiveActivityAttributes")?.declaration.attributes.count == 23,
            "every attribute of expo-live-activity's type")
    }

    @Test("a declared type of the same name replaces the preset")
    func declaredWins() {
        var declarations = ActivityTypePresets.declarations
        let own = JSONValue.parse(Array(#"{"attributes": {"orderID": "String"}, "contentState": {"stage": "String"}}"#.utf8))!
        declarations["LiveActivityAttributes"] = try? ActivityTypeDeclaration(json: own)
        let registry = ActivityTypeRegistry(declarations)
        let mine = Self.start("LiveActivityAttributes", attributes: #"{"orderID":"1"}"#, state: #"{"stage":"ready"}"#)
        #expect(registry.check(Self.push(mine), token: nil, now: Self.now).violation == nil)
        let theirs = Self.start("LiveActivityAttributes", attributes: #"{"name":"Order"}"#, state: #"{"title":"t"}"#)
        #expect(registry.check(Self.push(theirs), token: nil, now: Self.now).violation?.explanation.hasPrefix("attributes.orderID") == true)
    }
}
