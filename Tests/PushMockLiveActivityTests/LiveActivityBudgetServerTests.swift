import AsyncHTTPClient
import Foundation
import PushMockCore
import PushMockInspection
import PushMockServer
import PushMockTestSupport
import PushMockTesting
import Testing

/// The device budgets through a server: APNs answers 200, the delivery is recorded dropped with
/// its reason (or, coalesced, is never shown), and the activity's timeline and card say so.
@Suite("Live Activity budgets end to end: push-to-start, the app not running, render coalescing")
struct LiveActivityBudgetServerTests {
    typealias S = APNSTestServer
    typealias L = LiveActivityTestServer

    @Test("each budget: 200 on the wire, the delivery dropped or coalesced with its reason, the timeline and the shown content follow")
    func budgets() async throws {
        let (base, clock) = L.configuration()
        var configuration = base
        configuration.liveActivityLimits.pushToStartBudget = 1
        configuration.liveActivityLimits.backgroundBudget = 1
        configuration.liveActivityLimits.renderInterval = .seconds(5)
        try await withPushMockServer(configuration) { server in
            try await withHTTPClient { client in
                let jwt = S.token(issuedAt: clock.nowSeconds)
                let now = clock.nowSeconds
                #expect(try await L.send(client, server, token: L.pushToStart, jwt: jwt, aps: L.start(now)).0 == 200)
                let token = try #require(try await L.newest(server).issuedActivityToken)

                // A second start through the same token within the hour: 200, and the device refuses it.
                clock.advance(byMilliseconds: 1000)
                #expect(try await L.send(client, server, token: L.pushToStart, jwt: jwt, aps: L.start(now + 1)).0 == 200)
                let refused = try await L.newest(server)
                #expect(refused.outcome == .dropped)
                #expect(refused.reason == "LiveActivityPushToStartBudgetExhausted")

                func update(_ seconds: Int64, _ score: String) async throws -> Delivery {
                    clock.advance(byMilliseconds: 1000)
                    let aps = #""event":"update","timestamp":\#(now + seconds),"content-state":{"score":"\#(score)"}"#
                    #expect(try await L.send(client, server, token: token, jwt: jwt, aps: aps).0 == 200)
                    return try await L.newest(server)
                }
                // The app is not running (nothing says it is): one priority-10 update, then none.
                clock.advance(byMilliseconds: 10_000)
                #expect(try await update(12, "1-0").outcome == .accepted)
                let spent = try await update(13, "2-0")
                #expect(spent.outcome == .dropped)
                #expect(spent.reason == "LiveActivityBackgroundBudgetSpent")

                // The app runs (the registry says so through the API): updates apply again, each
                // held for the next render; the second replaces the first before it renders.
                let running = await server.inspect("PUT", "/api/v1/devices/\(token)", body: #"{"appRunning":true}"#)
                #expect(running.status == 200, "\(running.text)")
                #expect(try await server.inspected("/api/v1/devices/\(token)", as: DeviceResource.self).appRunning == true)
                let held = try await update(14, "3-0")
                #expect(held.outcome == .accepted)
                #expect(held.diagnostics.contains { $0.contains("at most every 5 s") }, "\(held.diagnostics)")
                #expect(try await update(15, "4-0").outcome == .accepted)

                var activity = try await server.inspected("/api/v1/activities/\(token)", as: ActivityResource.self)
                let timeline = try #require(activity.timeline)
                #expect(timeline.map(\.deviceOutcome) == ["applied", "applied", "dropped", "coalesced", "applied"])
                #expect(timeline[2].reason == "LiveActivityBackgroundBudgetSpent")
                #expect(timeline[3].reason == "LiveActivityCoalesced")
                #expect(timeline[3].rendersAt == timeline[4].rendersAt && timeline[4].rendersAt != nil)
                #expect(activity.contentState?["score"] == .string("1-0"), "the card shows what the device rendered")
                #expect(activity.pendingRender?.contentState?["score"] == .string("4-0"))

                clock.advance(byMilliseconds: 5000)
                activity = try await server.inspected("/api/v1/activities/\(token)", as: ActivityResource.self)
                #expect(activity.contentState?["score"] == .string("4-0"), "once rendered, only the last is shown")
                #expect(activity.pendingRender == nil)
            }
        }
    }

    @Test("the budgets from the configuration file and their bounds")
    func configurationFile() throws {
        let file = TestScratch.path("budgets", extension: "json")
        try Data(#"{"liveActivity":{"pushToStartBudgetPerHour":3,"backgroundBudget":20,"renderIntervalSeconds":1.5}}"#.utf8)
            .write(to: URL(fileURLWithPath: file))
        var configuration = PushMockConfiguration()
        try configuration.load(file: file)
        #expect(configuration.liveActivityLimits.pushToStartBudget == 3)
        #expect(configuration.liveActivityLimits.backgroundBudget == 20)
        #expect(configuration.liveActivityLimits.renderInterval == .milliseconds(1500))
        try Data(#"{"liveActivity":{"renderIntervalSeconds":0}}"#.utf8).write(to: URL(fileURLWithPath: file))
        var refused = PushMockConfiguration()
        #expect(throws: (any Error).self) { try refused.load(file: file) }
        try Data(#"{"devices":{"abc":{"appRunning":"yes"}}}"#.utf8).write(to: URL(fileURLWithPath: file))
        #expect(throws: (any Error).self) { try refused.load(file: file) }
        try Data(#"{"devices":{"abc":{"appRunning":true}}}"#.utf8).write(to: URL(fileURLWithPath: file))
        var devices = PushMockConfiguration()
        try devices.load(file: file)
        #expect(devices.apns.devices["abc"]?.appRunning == true)
    }
}
