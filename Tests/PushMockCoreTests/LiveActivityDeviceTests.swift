import PushMockCore
import Testing

@Suite("A simulated device applies, drops and times out Live Activity pushes")
struct LiveActivityDeviceTests {
    static let t0: Int64 = 1_767_225_600_000  // ms
    static let s0: Int64 = t0 / 1000

    /// The instant `milliseconds` after 1970.
    static func at(_ milliseconds: Int64) -> PushInstant { PushInstant(millisecondsSinceEpoch: milliseconds) }
    static let pushToStart = String(repeating: "a1", count: 80)
    static let activityToken = String(repeating: "b2", count: 80)
    static let bundle = "com.example.app"

    static func push(_ aps: String, priority: Int = 10) -> LiveActivityPush {
        LiveActivityPush(payload: JSONValue.parse(Array(#"{"aps":{\#(aps)}}"#.utf8))!, priority: priority)!
    }

    static func start(_ seconds: Int64, input: Bool = true, channel: String? = nil) -> LiveActivityPush {
        var aps =
            #""event":"start","timestamp":\#(seconds),"content-state":{"score":"0-0"},"attributes-type":"MatchAttributes","attributes":{"home":"A"},"alert":{"title":"Kick-off","body":"A v B"}"#
        if input { aps += #","input-push-token":1"# }
        if let channel { aps += #","input-push-channel":"\#(channel)""# }
        return push(aps)
    }

    static func update(_ seconds: Int64, score: String, priority: Int = 10) -> LiveActivityPush {
        push(#""event":"update","timestamp":\#(seconds),"content-state":{"score":"\#(score)"}"#, priority: priority)
    }

    @Test("start → updates (one out of order) → end → update after end → dismissal, all on one timeline")
    func lifecycle() throws {
        var device = LiveActivityDevice(seed: 7)
        let started = device.receive(
            Self.start(Self.s0), token: Self.pushToStart, kind: nil, bundleID: Self.bundle, service: .apns, now: Self.at(Self.t0))
        let token = try #require(started.issuedToken)
        #expect(token.utf8.count == 160 && token.allSatisfy(\.isHexDigit), "an 80-byte token like a device's")
        #expect(started.drop == nil)

        let first = device.receive(
            Self.update(Self.s0 + 60, score: "1-0"), token: token, kind: nil, bundleID: Self.bundle, service: .apns, now: Self.at(Self.t0 + 60_000))
        #expect(first.drop == nil)
        let stale = device.receive(
            Self.update(Self.s0 + 30, score: "0-1"), token: token, kind: nil, bundleID: Self.bundle, service: .apns, now: Self.at(Self.t0 + 61_000))
        #expect(stale.drop == .olderThanCurrentContent)
        let equal = device.receive(
            Self.update(Self.s0 + 60, score: "9-9"), token: token, kind: nil, bundleID: Self.bundle, service: .apns, now: Self.at(Self.t0 + 62_000))
        #expect(equal.drop == .olderThanCurrentContent, "not newer is dropped too")
        #expect(device.activity(token)?.contentState?["score"] == .string("1-0"), "the device keeps the newer content")

        let end = Self.push(#""event":"end","timestamp":\#(Self.s0 + 120),"content-state":{"score":"2-1"},"dismissal-date":\#(Self.s0 + 3600)"#)
        #expect(device.receive(end, token: token, kind: nil, bundleID: Self.bundle, service: .apns, now: Self.at(Self.t0 + 120_000)).drop == nil)
        #expect(device.activity(token)?.state(at: Self.at(Self.t0 + 121_000), limits: device.limits) == .ended)
        let late = device.receive(
            Self.update(Self.s0 + 180, score: "3-1"), token: token, kind: nil, bundleID: Self.bundle, service: .apns, now: Self.at(Self.t0 + 180_000))
        #expect(late.drop == .afterEnd)
        #expect(device.activity(token)?.state(at: Self.at(Self.t0 + 3_600_000), limits: device.limits) == .dismissed, "gone at its dismissal-date")
        let gone = device.receive(
            Self.update(Self.s0 + 3700, score: "4-1"), token: token, kind: nil, bundleID: Self.bundle, service: .apns,
            now: Self.at(Self.t0 + 3_700_000))
        #expect(gone.drop == .dismissed)

        let timeline = try #require(device.activity(token)?.timeline)
        #expect(timeline.map(\.event) == ["start", "update", "update", "update", "end", "update", "update"])
        #expect(timeline.map(\.applied) == [true, true, false, false, true, false, false])
        #expect(
            timeline.compactMap(\.reason) == [
                "LiveActivityOlderThanCurrentContent", "LiveActivityOlderThanCurrentContent", "LiveActivityAfterEnd", "LiveActivityDismissed",
            ])
        #expect(device.activity(token)?.contentState?["score"] == .string("2-1"))
    }

    @Test("an end without dismissal-date stays 4 hours; a past dismissal-date removes it at once")
    func dismissal() throws {
        var device = LiveActivityDevice(seed: 1)
        let token = try #require(
            device.receive(Self.start(Self.s0), token: Self.pushToStart, kind: nil, bundleID: nil, service: .apns, now: Self.at(Self.t0)).issuedToken)
        _ = device.receive(
            Self.push(#""event":"end","timestamp":\#(Self.s0 + 1)"#), token: token, kind: nil, bundleID: nil, service: .apns,
            now: Self.at(Self.t0 + 1000))
        #expect(device.activity(token)?.state(at: Self.at(Self.t0 + 1000 + 4 * 3_600_000 - 1), limits: device.limits) == .ended)
        #expect(device.activity(token)?.state(at: Self.at(Self.t0 + 1000 + 4 * 3_600_000), limits: device.limits) == .dismissed)

        let other = try #require(
            device.receive(Self.start(Self.s0), token: Self.pushToStart, kind: nil, bundleID: nil, service: .apns, now: Self.at(Self.t0)).issuedToken)
        _ = device.receive(
            Self.push(#""event":"end","timestamp":\#(Self.s0 + 1),"dismissal-date":\#(Self.s0 - 10)"#), token: other, kind: nil, bundleID: nil,
            service: .apns, now: Self.at(Self.t0 + 1000))
        #expect(device.activity(other)?.state(at: Self.at(Self.t0 + 1000), limits: device.limits) == .dismissed)
    }

    @Test("8 hours after the start the system ends the activity; after 12 it is removed")
    func eightAndTwelveHours() throws {
        var device = LiveActivityDevice(seed: 2)
        let token = try #require(
            device.receive(Self.start(Self.s0), token: Self.pushToStart, kind: nil, bundleID: nil, service: .apns, now: Self.at(Self.t0)).issuedToken)
        let hour: Int64 = 3_600_000
        #expect(
            device.receive(
                Self.update(Self.s0 + 7 * 3600, score: "1-0"), token: token, kind: nil, bundleID: nil, service: .apns,
                now: Self.at(Self.t0 + 7 * hour)
            ).drop == nil)
        #expect(device.activity(token)?.state(at: Self.at(Self.t0 + 8 * hour), limits: device.limits) == .ended)
        #expect(
            device.receive(
                Self.update(Self.s0 + 8 * 3600, score: "2-0"), token: token, kind: nil, bundleID: nil, service: .apns,
                now: Self.at(Self.t0 + 8 * hour)
            ).drop == .expired)
        #expect(
            device.receive(
                Self.update(Self.s0 + 12 * 3600, score: "3-0"), token: token, kind: nil, bundleID: nil, service: .apns,
                now: Self.at(Self.t0 + 12 * hour)
            ).drop == .removed)
        #expect(device.activity(token)?.state(at: Self.at(Self.t0 + 12 * hour), limits: device.limits) == .dismissed)
    }

    @Test("stale after stale-date; updates to an unknown token create the activity the device must have")
    func staleAndImplicit() throws {
        var device = LiveActivityDevice(seed: 3)
        let update = Self.push(#""event":"update","timestamp":\#(Self.s0),"content-state":{"a":1},"stale-date":\#(Self.s0 + 600)"#)
        #expect(device.receive(update, token: Self.activityToken, kind: nil, bundleID: Self.bundle, service: .fcm, now: Self.at(Self.t0)).drop == nil)
        let activity = try #require(device.activity(Self.activityToken))
        #expect(activity.implicit)
        #expect(activity.state(at: Self.at(Self.t0 + 599_000), limits: device.limits) == .active)
        #expect(activity.state(at: Self.at(Self.t0 + 600_000), limits: device.limits) == .stale)
        #expect(activity.timeline.first?.service == .fcm)
    }

    @Test("push-to-start and activity tokens are not interchangeable; the attributes type must match")
    func tokenKinds() {
        var device = LiveActivityDevice(seed: 4)
        #expect(
            device.receive(Self.start(Self.s0), token: Self.activityToken, kind: .activity, bundleID: nil, service: .apns, now: Self.at(Self.t0)).drop
                == .startToActivityToken)
        #expect(
            device.receive(
                Self.update(Self.s0, score: "1"), token: Self.pushToStart, kind: .pushToStart(attributesType: nil), bundleID: nil, service: .apns,
                now: Self.at(Self.t0)
            ).drop == .updateToPushToStartToken)
        #expect(
            device.receive(
                Self.start(Self.s0), token: Self.pushToStart, kind: .pushToStart(attributesType: "OtherAttributes"), bundleID: nil, service: .apns,
                now: Self.at(Self.t0)
            ).drop == .attributesTypeMismatch)
        #expect(
            device.receive(
                Self.start(Self.s0), token: Self.pushToStart, kind: .pushToStart(attributesType: "MatchAttributes"), bundleID: nil, service: .apns,
                now: Self.at(Self.t0)
            ).drop == nil)
        let local = device.receive(
            Self.start(Self.s0, input: false), token: Self.pushToStart, kind: nil, bundleID: nil, service: .apns, now: Self.at(Self.t0))
        #expect(local.issuedToken == nil, "no input-push-token: the server never learns a token")
        #expect(local.activityID?.hasPrefix("local-") == true)
    }

    @Test("an optional priority-10 budget throttles per hour; priority 5 is not counted")
    func budget() throws {
        var limits = LiveActivityDevice.Limits()
        limits.priorityBudgetPerHour = 2
        var device = LiveActivityDevice(limits: limits, seed: 5)
        let token = try #require(
            device.receive(Self.start(Self.s0, input: true), token: Self.pushToStart, kind: nil, bundleID: nil, service: .apns, now: Self.at(Self.t0))
                .issuedToken)
        var drops: [LiveActivityDeviceRule?] = []
        for step in 1...4 {
            drops.append(
                device.receive(
                    Self.update(Self.s0 + Int64(step), score: "\(step)"), token: token, kind: nil, bundleID: nil, service: .apns,
                    now: Self.at(Self.t0 + Int64(step) * 1000)
                ).drop)
        }
        #expect(drops == [nil, nil, .priorityBudgetExceeded, .priorityBudgetExceeded])
        #expect(
            device.receive(
                Self.update(Self.s0 + 5, score: "5", priority: 5), token: token, kind: nil, bundleID: nil, service: .apns,
                now: Self.at(Self.t0 + 5000)
            ).drop == nil)
        #expect(
            device.receive(
                Self.update(Self.s0 + 3700, score: "6"), token: token, kind: nil, bundleID: nil, service: .apns, now: Self.at(Self.t0 + 3_700_000)
            ).drop == nil, "a new hour")
    }

    @Test("a broadcast reaches every activity that joined the channel, and only those")
    func broadcast() throws {
        var device = LiveActivityDevice(seed: 6)
        let a = try #require(
            device.receive(
                Self.start(Self.s0, channel: "Y2hhbm5lbA=="), token: Self.pushToStart, kind: nil, bundleID: Self.bundle, service: .apns,
                now: Self.at(Self.t0)
            ).issuedToken)
        let b = try #require(
            device.receive(
                Self.start(Self.s0, channel: "Y2hhbm5lbA=="), token: Self.pushToStart, kind: nil, bundleID: Self.bundle, service: .apns,
                now: Self.at(Self.t0 + 1)
            ).issuedToken)
        let outsider = try #require(
            device.receive(Self.start(Self.s0), token: Self.pushToStart, kind: nil, bundleID: Self.bundle, service: .apns, now: Self.at(Self.t0 + 2))
                .issuedToken)
        let outcomes = device.broadcast(
            Self.update(Self.s0 + 10, score: "1-1"), channelID: "Y2hhbm5lbA==", bundleID: Self.bundle, now: Self.at(Self.t0 + 10_000))
        #expect(outcomes.count == 2)
        #expect(Set(outcomes.compactMap(\.activityID)) == [a, b])
        #expect(device.activity(a)?.contentState?["score"] == .string("1-1"))
        #expect(device.activity(b)?.timeline.last?.service == .broadcast)
        #expect(device.activity(outsider)?.timeline.count == 1)
    }
}
