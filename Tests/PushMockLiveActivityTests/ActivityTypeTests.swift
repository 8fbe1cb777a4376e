import AsyncHTTPClient
import Foundation
import PushMockCore
import PushMockInspection
import PushMockServer
import PushMockStore
import PushMockSwiftSource
import PushMockTestSupport
import PushMockTesting
import Testing

/// Declared activity types end to end (issue 12): a type from the configuration file, a start, then
/// an update whose content-state misses a field, under both profiles; FCM and the API too.
@Suite("Will my Live Activity decode? Declared types end to end")
struct ActivityTypeTests {
    typealias S = APNSTestServer
    typealias L = LiveActivityTestServer

    static let file = #"""
        {"activityTypes": {"MatchAttributes": {
            "attributes": {"home": "String", "away": "String"},
            "contentState": {"score": "String", "minute": "Int?", "kickoff": "Date?", "phase": "Phase?"},
            "types": {"Phase": {"enum": "String", "cases": ["first", "second"]}}}}}
        """#

    static func configuration(_ profile: LiveActivityProfile) throws -> (PushMockConfiguration, PushMockClock) {
        var (configuration, clock) = L.configuration()
        try configuration.load(contents: Array(file.utf8), path: "/tmp/pushmock-types.json")
        configuration.apns.options.liveActivity.profile = profile
        return (configuration, clock)
    }

    @Test(
        "a start, then an update missing a field: 400 under strict, 200 and dropped under apple, the path named in both",
        arguments: LiveActivityProfile.allCases)
    func missingField(_ profile: LiveActivityProfile) async throws {
        let (configuration, clock) = try Self.configuration(profile)
        #expect(configuration.activityTypes["MatchAttributes"] != nil, "declared in the configuration file")
        try await withPushMockServer(configuration) { server in
            try await withHTTPClient { client in
                let jwt = S.token(issuedAt: clock.nowSeconds)
                let now = clock.nowSeconds
                #expect(try await L.send(client, server, token: L.pushToStart, jwt: jwt, aps: L.start(now)).0 == 200)
                let token = try #require(try await L.newest(server).issuedActivityToken)
                let kickoff = now - 978_307_200
                let good =
                    #""event":"update","timestamp":\#(now + 1),"content-state":{"score":"1-0","minute":12,"kickoff":\#(kickoff),"phase":"first"}"#
                #expect(try await L.send(client, server, token: token, jwt: jwt, aps: good).0 == 200)
                let applied = try await L.newest(server)
                #expect(applied.outcome == .accepted)
                #expect(
                    applied.diagnostics.contains { $0.hasPrefix("content-state.kickoff reads as ") && !$0.contains("Unix time") },
                    "\(applied.diagnostics)")

                let (status, body) = try await L.send(
                    client, server, token: token, jwt: jwt, aps: #""event":"update","timestamp":\#(now + 2),"content-state":{"minute":13}"#)
                let recorded = try await L.newest(server)
                let path = #"content-state.score: missing key "score""#
                switch profile {
                case .strict:
                    #expect(status == 400)
                    #expect(body["reason"] as? String == "LiveActivityContentStateUndecodable")
                    #expect((body["description"] as? String)?.hasPrefix(path) == true, "\(body)")
                    #expect(recorded.outcome == .rejected)
                case .apple:
                    #expect(status == 200)
                    #expect(recorded.outcome == .dropped)
                    #expect(recorded.reason == "LiveActivityContentStateUndecodable")
                }
                #expect(recorded.explanation?.hasPrefix(path) == true, "\(recorded.explanation ?? "")")

                // A Date sent as Unix time is accepted, with the warning of what the device shows.
                let unix = #""event":"update","timestamp":\#(now + 3),"content-state":{"score":"2-0","kickoff":\#(now)}"#
                #expect(try await L.send(client, server, token: token, jwt: jwt, aps: unix).0 == 200)
                #expect(
                    try await L.newest(server).diagnostics.contains {
                        $0.contains("ActivityKit decodes Date as seconds since 2001-01-01 (Unix time − 978307200)")
                    })

                // FCM Live Activity messages to the same activity are checked against the same type.
                let bearer = try await FCMTestServer.accessToken(client, port: server.pushPort)
                let message =
                    #"{"message":{"token":"\#(FCMTestServer.token)","apns":{"live_activity_token":"\#(token)","payload":{"aps":{"event":"update","timestamp":\#(now + 4),"content-state":{"score":"3-0","phase":"third"}}}}}}"#
                let (fcmStatus, fcmJSON, _) = try await FCMTestServer.send(client, port: server.pushPort, bearer: bearer, body: message)
                let fcm = try await L.newest(server)
                #expect(fcm.reason == "LiveActivityContentStateUndecodable")
                #expect(fcm.explanation?.contains("content-state.phase: String \"third\" is not a case of Phase") == true, "\(fcm.explanation ?? "")")
                #expect(fcmStatus == (profile == .strict ? 400 : 200), "\(fcmJSON)")

                // The activity shows its type and the state as the device decoded it (dates as it reads them).
                let activity = try await server.inspected("/api/v1/activities/\(token)", as: ActivityResource.self)
                #expect(activity.attributesType == "MatchAttributes")
                let decoded = try #require(activity.decodedContentState)
                #expect(decoded["score"] == .string("2-0"))
                guard case .string(let kickoff) = decoded["kickoff"] else {
                    Issue.record("kickoff is a date string: \(decoded)")
                    return
                }
                #expect((Int(kickoff.prefix(4)) ?? 0) > 2050, "Unix time read as seconds since 2001 lands 31 years later: \(kickoff)")
            }
        }
    }

    @Test(
        "types read from a widget extension's Swift source: each mismatch is a 400 under strict and dropped under apple, naming the field path",
        arguments: LiveActivityProfile.allCases)
    func fromSource(_ profile: LiveActivityProfile) async throws {
        let widget = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("PushMockSwiftSourceTests/Fixtures/DeliveryWidget").path
        let read = try SwiftActivityTypes.read(path: widget)
        var (configuration, clock) = L.configuration()
        for found in read.types { configuration.activityTypes[found.name] = found.declaration }
        configuration.apns.options.liveActivity.profile = profile
        try await withPushMockServer(configuration) { server in
            try await withHTTPClient { client in
                let jwt = S.token(issuedAt: clock.nowSeconds)
                let now = clock.nowSeconds
                func start(_ state: String) -> String {
                    #""event":"start","timestamp":\#(now),"attributes-type":"DeliveryAttributes","attributes":{"orderID":"A1","restaurant":{"name":"Luigi"}},"content-state":\#(state),"alert":{"title":"Order","body":"On its way"}"#
                }
                #expect(
                    try await L.send(
                        client, server, token: L.pushToStart, jwt: jwt,
                        aps: start(#"{"stage":"on_the_way","eta":800000000,"eta_minutes":5,"stops":[]}"#)
                    ).0 == 200)
                #expect(try await L.newest(server).outcome == .accepted)
                let mismatches: [(String, String)] = [
                    (#"{"stage":"onTheWay","eta":1,"eta_minutes":1,"stops":[]}"#, "content-state.stage"),
                    (#"{"stage":"preparing","eta":1,"etaMinutes":1,"stops":[]}"#, "content-state.eta_minutes"),
                    (#"{"stage":"preparing","eta":"2026-01-01","eta_minutes":1,"stops":[]}"#, "content-state.eta"),
                    (#"{"stage":"preparing","eta":1,"eta_minutes":1,"stops":[{"id":"x","label":"door"}]}"#, "content-state.stops[0].id"),
                ]
                for (state, path) in mismatches {
                    let (status, body) = try await L.send(client, server, token: L.pushToStart, jwt: jwt, aps: start(state))
                    let recorded = try await L.newest(server)
                    switch profile {
                    case .strict:
                        #expect(status == 400 && body["reason"] as? String == "LiveActivityContentStateUndecodable", "\(path): \(body)")
                        #expect((body["description"] as? String)?.hasPrefix(path) == true, "\(body)")
                        #expect(recorded.outcome == .rejected)
                    case .apple:
                        #expect(status == 200, "\(path): \(body)")
                        #expect(recorded.outcome == .dropped && recorded.reason == "LiveActivityContentStateUndecodable")
                        #expect(recorded.explanation?.hasPrefix(path) == true, "\(recorded.explanation ?? "")")
                    }
                }
            }
        }
    }

    @Test("a push to an SDK's preset type is checked with no declaration, naming the SDK; with presets off it is not")
    func presets() async throws {
        for presets in [true, false] {
            var (configuration, clock) = try Self.configuration(.strict)
            configuration.activityTypePresets = presets
            try await withPushMockServer(configuration) { server in
                try await withHTTPClient { client in
                    let jwt = S.token(issuedAt: clock.nowSeconds)
                    let now = clock.nowSeconds
                    // expo-live-activity's type, started without the required title.
                    let start =
                        #""event":"start","timestamp":\#(now),"attributes-type":"LiveActivityAttributes","attributes":{"name":"Order"},"content-state":{"subtitle":"soon"},"alert":{"title":"t","body":"b"},"input-push-token":1"#
                    let (status, body) = try await L.send(client, server, token: L.pushToStart, jwt: jwt, aps: start)
                    if presets {
                        #expect(status == 400 && body["reason"] as? String == "LiveActivityContentStateUndecodable", "\(body)")
                        #expect((body["description"] as? String)?.contains("as the expo-live-activity SDK defines it") == true, "\(body)")
                        let listed = try await server.inspected("/api/v1/activity-types/LiveActivityAttributes", as: ActivityTypeResource.self)
                        #expect(listed.declaredBy == "preset")
                        #expect(listed.origin?.contains("software-mansion-labs/expo-live-activity") == true, "\(String(describing: listed.origin))")
                    } else {
                        #expect(status == 200, "\(body)")
                        #expect(await server.inspect("GET", "/api/v1/activity-types/LiveActivityAttributes").status == 404)
                    }
                }
            }
        }
    }

    @Test("the API declares, lists, shows and forgets types; a bad declaration is a 400 naming the path; reset restores the file's")
    func api() async throws {
        let (configuration, _) = try Self.configuration(.strict)
        try await withPushMockServer(configuration) { server in
            let put = await server.inspect(
                "PUT", "/api/v1/activity-types/DeliveryAttributes",
                body:
                    #"{"contentState": {"stage": "Stage", "eta": {"type": "Date", "key": "eta_date"}}, "types": {"Stage": {"enum": "String", "cases": ["a", "b"]}}}"#
            )
            #expect(put.status == 200, "\(put.text)")
            #expect(try put.decode(ActivityTypeResource.self).declaredBy == "declaration")
            let listed = try await server.inspected("/api/v1/activity-types", as: ActivityTypeList.self).activityTypes
            #expect(listed.filter { $0.declaredBy != "preset" }.map(\.name) == ["DeliveryAttributes", "MatchAttributes"])
            #expect(
                listed.filter { $0.declaredBy == "preset" }.map(\.name) == ActivityTypePresets.all.map(\.name).sorted(),
                "the SDK presets are listed as presets")
            #expect(await server.inspect("GET", "/api/v1/activity-types/DeliveryAttributes").status == 200)
            let bad = await server.inspect("PUT", "/api/v1/activity-types/Bad", body: #"{"contentState": {"eta": "Instant"}}"#)
            #expect(bad.status == 400)
            #expect(bad.errorMessage?.contains("contentState.eta") == true, "\(bad.text)")
            #expect(await server.inspect("PUT", "/api/v1/activity-types/lowercase", body: "{}").status == 400)
            #expect(await server.inspect("DELETE", "/api/v1/activity-types/DeliveryAttributes").status == 200)
            #expect(await server.inspect("GET", "/api/v1/activity-types/DeliveryAttributes").status == 404)
            _ = await server.inspect("PUT", "/api/v1/activity-types/Other", body: "{}")
            try await server.reset()
            let after = try await server.inspected("/api/v1/activity-types", as: ActivityTypeList.self).activityTypes
            #expect(after.filter { $0.declaredBy != "preset" }.map(\.name) == ["MatchAttributes"], "back to the configuration")
            #expect(after.count == 1 + ActivityTypePresets.all.count, "and its presets")
        }
    }
}
