import PushMockCore
import Testing

/// The device-side budgets of Live Activities: APNs answers 200 and the device drops (or does not
/// show) the push. Each is off by default, because Apple publishes no number.
@Suite("A simulated device's Live Activity budgets: push-to-start, updates while the app is not running, render coalescing")
struct LiveActivityBudgetTests {
    typealias T = LiveActivityDeviceTests
    static let otherPushToStart = String(repeating: "c3", count: 80)

    static func device(_ change: (inout LiveActivityDevice.Limits) -> Void) -> LiveActivityDevice {
        var limits = LiveActivityDevice.Limits()
        change(&limits)
        return LiveActivityDevice(limits: limits, seed: 9)
    }

    static func start(_ device: inout LiveActivityDevice, token: String = T.pushToStart, at milliseconds: Int64) -> LiveActivityDevice.Outcome {
        device.receive(T.start(milliseconds / 1000), token: token, kind: nil, bundleID: T.bundle, service: .apns, now: T.at(milliseconds))
    }

    static func update(
        _ device: inout LiveActivityDevice, _ token: String, at milliseconds: Int64, score: String, priority: Int = 10, appRunning: Bool = false
    ) -> LiveActivityDevice.Outcome {
        device.receive(
            T.update(milliseconds / 1000, score: score, priority: priority), token: token, kind: nil, bundleID: T.bundle, service: .apns,
            now: T.at(milliseconds), appRunning: appRunning)
    }

    @Test("the push-to-start budget: past N starts through one token within the hour the start is dropped; other tokens and a later hour start")
    func pushToStartBudget() throws {
        var device = Self.device { $0.pushToStartBudget = 2 }
        let outcomes = (0..<3).map { Self.start(&device, at: T.t0 + Int64($0) * 1000) }
        #expect(outcomes.map(\.drop) == [nil, nil, .pushToStartBudgetExhausted])
        #expect(outcomes[2].activityID == nil && outcomes[2].issuedToken == nil, "no activity is created")
        #expect(outcomes[2].dropReason == "LiveActivityPushToStartBudgetExhausted")
        #expect(device.activities.count == 2)
        #expect(Self.start(&device, token: Self.otherPushToStart, at: T.t0 + 3000).drop == nil, "the budget is per push-to-start token")
        #expect(Self.start(&device, at: T.t0 + 3_600_000).drop == nil, "one of the two starts left the window")
        #expect(Self.start(&device, at: T.t0 + 3_600_500).drop == .pushToStartBudgetExhausted)
        #expect(Self.start(&device, at: T.t0 + 3_601_001).drop == nil)

        var unlimited = Self.device { _ in }
        #expect((0..<20).map { Self.start(&unlimited, at: T.t0 + Int64($0)) }.allSatisfy { $0.drop == nil }, "off by default")
    }

    @Test("the window of the push-to-start budget is configurable")
    func pushToStartWindow() {
        var device = Self.device {
            $0.pushToStartBudget = 1
            $0.pushToStartWindow = .seconds(10)
        }
        #expect(Self.start(&device, at: T.t0).drop == nil)
        #expect(Self.start(&device, at: T.t0 + 9_999).drop == .pushToStartBudgetExhausted)
        #expect(Self.start(&device, at: T.t0 + 10_000).drop == nil)
    }

    @Test("while the app is not running, an activity takes N priority-10 updates, then none (any priority) until the app runs; an end still ends it")
    func backgroundBudget() throws {
        var device = Self.device { $0.backgroundBudget = 2 }
        let token = try #require(Self.start(&device, at: T.t0).issuedToken)
        var drops: [LiveActivityDeviceRule?] = []
        for (step, priority) in [5, 10, 5, 10, 10, 5].enumerated() {
            drops.append(Self.update(&device, token, at: T.t0 + Int64(step + 1) * 1000, score: "\(step)", priority: priority).drop)
        }
        #expect(
            drops == [nil, nil, nil, nil, .backgroundBudgetSpent, .backgroundBudgetSpent], "priority 5 does not spend it, but stops once it is spent")
        let activity = try #require(device.activity(token))
        #expect(activity.contentState?["score"] == .string("3"), "the device shows the last update it applied")
        let entry = try #require(activity.timeline.last)
        #expect(!entry.applied && entry.reason == "LiveActivityBackgroundBudgetSpent", "the timeline shows the drop")

        // The app runs: updates apply, and the budget is whole again once it stops.
        #expect(Self.update(&device, token, at: T.t0 + 10_000, score: "running", appRunning: true).drop == nil)
        #expect(Self.update(&device, token, at: T.t0 + 11_000, score: "a").drop == nil)
        #expect(Self.update(&device, token, at: T.t0 + 12_000, score: "b").drop == nil)
        #expect(Self.update(&device, token, at: T.t0 + 13_000, score: "c").drop == .backgroundBudgetSpent)
        let end = device.receive(
            T.push(#""event":"end","timestamp":\#(T.s0 + 14),"content-state":{"score":"final"}"#), token: token, kind: nil, bundleID: T.bundle,
            service: .apns, now: T.at(T.t0 + 14_000))
        #expect(end.drop == nil, "an end is not an update: the activity ends")
        #expect(device.activity(token)?.endedAt == T.t0 + 14_000)

        var unlimited = Self.device { _ in }
        let other = try #require(Self.start(&unlimited, at: T.t0).issuedToken)
        #expect(
            (1...30).map { Self.update(&unlimited, other, at: T.t0 + Int64($0) * 1000, score: "\($0)").drop }.allSatisfy { $0 == nil },
            "off by default")
    }

    @Test("a render interval: an update sooner after the last render shows when it ends, and a later one arriving first replaces it")
    func renderInterval() throws {
        var device = Self.device { $0.renderInterval = .seconds(5) }
        let token = try #require(Self.start(&device, at: T.t0).issuedToken)
        let first = Self.update(&device, token, at: T.t0 + 1000, score: "1")
        #expect(first.drop == nil)
        #expect(first.diagnostics.contains { $0.contains("at most every 5 s") && $0.contains("4 s from now") }, "\(first.diagnostics)")
        let second = Self.update(&device, token, at: T.t0 + 2000, score: "2")
        #expect(second.drop == nil)

        var activity = try #require(device.activity(token))
        let waiting = activity.shown(at: T.at(T.t0 + 3000))
        #expect(waiting.contentState?["score"] == .string("0-0"), "the start's content is still shown")
        #expect(waiting.pending?.contentState?["score"] == .string("2"))
        #expect(waiting.pending?.rendersAt == T.t0 + 5000)
        let rendered = activity.shown(at: T.at(T.t0 + 5000))
        #expect(rendered.contentState?["score"] == .string("2") && rendered.pending == nil, "only the last is shown")

        // The next render is 5 s after that one; an update after a quiet spell renders at once.
        #expect(Self.update(&device, token, at: T.t0 + 7000, score: "3").diagnostics.contains { $0.contains("3 s from now") })
        let quiet = Self.update(&device, token, at: T.t0 + 20_000, score: "4")
        #expect(!quiet.diagnostics.contains { $0.contains("at most every") }, "\(quiet.diagnostics)")
        activity = try #require(device.activity(token))
        #expect(activity.timeline.map(\.rendersAt) == [T.t0, T.t0 + 5000, T.t0 + 5000, T.t0 + 10_000, T.t0 + 20_000])
        #expect(activity.shown(at: T.at(T.t0 + 20_000)).contentState?["score"] == .string("4"))

        // A dropped update takes no render.
        let older = Self.update(&device, token, at: T.t0 + 21_000, score: "old")
        #expect(older.drop == nil)
        let stale = device.receive(
            T.update(T.s0, score: "stale"), token: token, kind: nil, bundleID: T.bundle, service: .apns, now: T.at(T.t0 + 22_000))
        #expect(stale.drop == .olderThanCurrentContent)
        #expect(device.activity(token)?.timeline.last?.rendersAt == nil)

        var unlimited = Self.device { _ in }
        let other = try #require(Self.start(&unlimited, at: T.t0).issuedToken)
        #expect(Self.update(&unlimited, other, at: T.t0 + 1, score: "x").diagnostics.isEmpty, "off by default")
        #expect(unlimited.activity(other)?.timeline.allSatisfy { $0.rendersAt == nil } == true)
        #expect(unlimited.activity(other)?.shown(at: T.at(T.t0 + 1)).pending == nil)
    }
}
