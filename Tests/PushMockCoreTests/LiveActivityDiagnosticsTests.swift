import PushMockCore
import Testing

@Suite("Live Activity pushes a device applies but that will not show what the sender meant")
struct LiveActivityDiagnosticsTests {
    typealias D = LiveActivityDeviceTests
    static let now = PushInstant(millisecondsSinceEpoch: D.t0)

    /// The payload rules' diagnostics for `aps` sent with `headers`.
    static func diagnostics(_ aps: String, _ headers: LiveActivityHeaders = LiveActivityHeaders()) -> [String] {
        let payload = JSONValue.parse(Array(#"{"aps":{\#(aps)}}"#.utf8))!
        let finding = LiveActivityPayloadRules.check(payload: payload, now: now, options: LiveActivityOptions(), headers: headers)
        #expect(finding.violation == nil, "the push itself is valid: \(String(describing: finding.violation))")
        return finding.diagnostics
    }

    static func start(alert: String = #"{"title":"Kick-off","body":"A v B"}"#, state: String = #"{"score":"0-0"}"#) -> String {
        #""event":"start","timestamp":\#(D.s0),"content-state":\#(state),"attributes-type":"MatchAttributes","attributes":{"home":"A"},"alert":\#(alert)"#
    }

    @Test("apns-expiration: 0 on a push-to-start, and only on a start")
    func expirationZero() {
        let found = Self.diagnostics(Self.start(), LiveActivityHeaders(expiration: "0"))
        #expect(found.count == 1 && found[0].hasPrefix("apns-expiration: 0 on a push-to-start"), "\(found)")
        #expect(Self.diagnostics(Self.start(), LiveActivityHeaders(expiration: "\(D.s0 + 3600)")).isEmpty)
        #expect(
            Self.diagnostics(#""event":"update","timestamp":\#(D.s0),"content-state":{"score":"1-0"}"#, LiveActivityHeaders(expiration: "0")).isEmpty)
    }

    @Test(
        "a widget extension's bundle id as the topic, and a doubled .push-type.liveactivity",
        arguments: [
            ("com.example.app.MatchWidget.push-type.liveactivity", "looks like a widget extension"),
            ("com.example.app.widgetextension.push-type.liveactivity", "looks like a widget extension"),
            ("com.example.app.LiveActivityExtension.push-type.liveactivity", "looks like a widget extension"),
            ("com.example.app.push-type.liveactivity.push-type.liveactivity", "ends in .push-type.liveactivity twice"),
            ("com.example.app.push-type.liveactivity", nil),
            ("com.example.widgets-app.push-type.liveactivity", nil),
            ("com.example.app.Widgets.push-type.liveactivity", "looks like a widget extension"),
            ("com.example.app", nil),
        ] as [(String, String?)])
    func topics(topic: String, expected: String?) {
        let found = Self.diagnostics(Self.start(), LiveActivityHeaders(topic: topic))
        if let expected {
            #expect(found.count == 1 && found[0].contains(expected), "\(topic): \(found)")
        } else {
            #expect(found.isEmpty, "\(topic): \(found)")
        }
    }

    @Test("the doubled suffix names the topic to send instead")
    func doubledSuffixFix() {
        let found = Self.diagnostics(Self.start(), LiveActivityHeaders(topic: "com.example.app.push-type.liveactivity.push-type.liveactivity"))
        #expect(found.first?.contains("add the suffix once: com.example.app.push-type.liveactivity)") == true, "\(found)")
    }

    @Test("web URLs in content-state, named by path, in any event")
    func webURLs() {
        let state =
            #"{"logo":"https://cdn.example.com/a.png","driver":{"photo":"HTTP://x/y.jpg","name":"Ann"},"stops":["ok","http://z"],"deepLink":"myapp://order/1"}"#
        let found = Self.diagnostics(Self.start(state: state))
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.hasPrefix("content-state.logo, content-state.driver.photo, content-state.stops[1] are web URLs") == true, "\(found)")
        let update = Self.diagnostics(#""event":"update","timestamp":\#(D.s0),"content-state":{"image":"https://cdn.example.com/b.png"}"#)
        #expect(update.first?.hasPrefix("content-state.image is a web URL") == true, "\(update)")
        #expect(
            Self.diagnostics(Self.start(state: #"{"deepLink":"myapp://order/1","note":"see https://x in the app"}"#)).isEmpty,
            "only values that are URLs")
    }

    @Test("an empty alert title or body on a start")
    func emptyAlert() {
        let found = Self.diagnostics(Self.start(alert: #"{"title":"","body":"  "}"#))
        #expect(
            found == [
                "aps.alert.title is empty: the push-to-start alert shows no title", "aps.alert.body is empty: the push-to-start alert shows no body",
            ])
        #expect(Self.diagnostics(Self.start(alert: #"{"title":{"loc-key":"KICKOFF"},"body":"A v B"}"#)).isEmpty, "a localized title is not empty")
    }

    @Test("an update whose content-state equals the one shown: applied, with a diagnostic (member order and number spelling do not count)")
    func unchangedContent() throws {
        var device = LiveActivityDevice(seed: 3)
        let started = device.receive(D.start(D.s0), token: D.pushToStart, kind: nil, bundleID: D.bundle, service: .apns, now: D.at(D.t0))
        let token = try #require(started.issuedToken)
        let first = D.push(#""event":"update","timestamp":\#(D.s0 + 1),"content-state":{"score":"1-0","minute":12,"tags":["a"]}"#)
        #expect(device.receive(first, token: token, kind: nil, bundleID: D.bundle, service: .apns, now: D.at(D.t0 + 1000)).diagnostics.isEmpty)
        let same = D.push(#""event":"update","timestamp":\#(D.s0 + 2),"content-state":{"tags":["a"],"minute":12.0,"score":"1-0"}"#)
        let outcome = device.receive(same, token: token, kind: nil, bundleID: D.bundle, service: .apns, now: D.at(D.t0 + 2000))
        #expect(outcome.drop == nil, "the device applies it")
        #expect(
            outcome.diagnostics.count == 1 && outcome.diagnostics[0].hasPrefix("content-state equals the state the activity already shows"),
            "\(outcome.diagnostics)")
        let changed = D.push(#""event":"update","timestamp":\#(D.s0 + 3),"content-state":{"score":"1-0","minute":13,"tags":["a"]}"#)
        #expect(device.receive(changed, token: token, kind: nil, bundleID: D.bundle, service: .apns, now: D.at(D.t0 + 3000)).diagnostics.isEmpty)
        let end = D.push(#""event":"end","timestamp":\#(D.s0 + 4),"content-state":{"score":"1-0","minute":13,"tags":["a"]}"#)
        #expect(
            device.receive(end, token: token, kind: nil, bundleID: D.bundle, service: .apns, now: D.at(D.t0 + 4000)).diagnostics.isEmpty,
            "an end with the last state is what to send")
    }

    @Test(
        "two push-to-starts for the same attributes without apns-collapse-id start two activities; a collapse id, other attributes or an ended first one do not warn"
    )
    func secondStart() throws {
        var device = LiveActivityDevice(seed: 4)
        let first = device.receive(D.start(D.s0), token: D.pushToStart, kind: nil, bundleID: D.bundle, service: .apns, now: D.at(D.t0))
        #expect(first.diagnostics.isEmpty)
        let second = device.receive(D.start(D.s0 + 1), token: D.pushToStart, kind: nil, bundleID: D.bundle, service: .apns, now: D.at(D.t0 + 1000))
        let firstID = try #require(first.activityID)
        #expect(second.activityID != nil && second.activityID != firstID, "the device really starts a second activity")
        #expect(second.diagnostics.count == 1 && second.diagnostics[0].contains("while activity \(firstID) is running"), "\(second.diagnostics)")
        #expect(device.activities.count == 2)

        var retried = D.start(D.s0 + 2)
        retried.collapseID = "order-1"
        #expect(
            device.receive(retried, token: D.pushToStart, kind: nil, bundleID: D.bundle, service: .apns, now: D.at(D.t0 + 2000)).diagnostics.isEmpty)

        let other = D.push(
            #""event":"start","timestamp":\#(D.s0 + 3),"content-state":{"score":"0-0"},"attributes-type":"MatchAttributes","attributes":{"home":"C"},"alert":{"title":"t","body":"b"},"input-push-token":1"#
        )
        #expect(
            device.receive(other, token: D.pushToStart, kind: nil, bundleID: D.bundle, service: .apns, now: D.at(D.t0 + 3000)).diagnostics.isEmpty,
            "other attributes: another activity on purpose")

        var ended = LiveActivityDevice(seed: 5)
        let token = try #require(
            ended.receive(D.start(D.s0), token: D.pushToStart, kind: nil, bundleID: D.bundle, service: .apns, now: D.at(D.t0)).issuedToken)
        _ = ended.receive(
            D.push(#""event":"end","timestamp":\#(D.s0 + 1),"content-state":{"score":"1-0"}"#), token: token, kind: nil, bundleID: D.bundle,
            service: .apns, now: D.at(D.t0 + 1000))
        #expect(
            ended.receive(D.start(D.s0 + 2), token: D.pushToStart, kind: nil, bundleID: D.bundle, service: .apns, now: D.at(D.t0 + 2000)).diagnostics
                .isEmpty)
    }

    @Test("an update to a token a start was sent to is dropped: it is a push-to-start token, not the activity's")
    func updateToStartToken() throws {
        var device = LiveActivityDevice(seed: 6)
        let token = try #require(
            device.receive(D.start(D.s0), token: D.pushToStart, kind: nil, bundleID: D.bundle, service: .apns, now: D.at(D.t0)).issuedToken)
        let wrong = device.receive(
            D.update(D.s0 + 1, score: "1-0"), token: D.pushToStart.uppercased(), kind: nil, bundleID: D.bundle, service: .apns, now: D.at(D.t0 + 1000)
        )
        #expect(wrong.drop == .updateToPushToStartToken)
        #expect(wrong.activityID == nil)
        #expect(device.activities.count == 1, "no activity was made up for the push-to-start token")
        #expect(
            device.receive(D.update(D.s0 + 1, score: "1-0"), token: token, kind: nil, bundleID: D.bundle, service: .apns, now: D.at(D.t0 + 1000)).drop
                == nil)
        let unknown = String(repeating: "c3", count: 80)
        #expect(
            device.receive(D.update(D.s0 + 2, score: "2-0"), token: unknown, kind: nil, bundleID: D.bundle, service: .apns, now: D.at(D.t0 + 2000))
                .drop == nil, "a token never used for a start is an activity started elsewhere")
        device.removeAll()
        #expect(
            device.receive(
                D.update(D.s0 + 3, score: "3-0"), token: D.pushToStart, kind: nil, bundleID: D.bundle, service: .apns, now: D.at(D.t0 + 3000)
            ).drop == nil, "forgotten with the activities")
    }
}
