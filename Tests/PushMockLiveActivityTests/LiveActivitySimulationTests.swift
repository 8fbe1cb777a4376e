import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import PushMockCore
import PushMockInspection
import PushMockServer
import PushMockStore
import PushMockTestSupport
import PushMockTesting
import Testing

@Suite("Live Activities end to end: device simulation, push-to-start, broadcast, inspection")
struct LiveActivitySimulationTests {
    typealias S = APNSTestServer
    @Test("push-to-start issues a token; updates (one out of order), 8-hour expiry and an FCM message land on one timeline")
    func pushToStartAndTimeline() async throws {
        let (configuration, clock) = LiveActivityTestServer.configuration()
        try await withPushMockServer(configuration) { server in
            try await withHTTPClient { client in
                server.devices.set(
                    DeviceRecord(liveActivity: .pushToStart(attributesType: "MatchAttributes")), for: LiveActivityTestServer.pushToStart)
                let jwt = S.token(issuedAt: clock.nowSeconds)
                let now = clock.nowSeconds
                #expect(
                    try await LiveActivityTestServer.send(
                        client, server, token: LiveActivityTestServer.pushToStart, jwt: jwt, aps: LiveActivityTestServer.start(now)
                    ).0 == 200)
                let start = try await LiveActivityTestServer.newest(server)
                let token = try #require(start.issuedActivityToken, "the simulated device issued an activity push token")
                #expect(token.utf8.count == 160)
                #expect(start.activityID == token)

                clock.advance(byMilliseconds: 60_000)
                #expect(
                    try await LiveActivityTestServer.send(
                        client, server, token: token, jwt: jwt, aps: #""event":"update","timestamp":\#(now + 60),"content-state":{"score":"1-0"}"#
                    ).0 == 200)
                #expect(try await LiveActivityTestServer.newest(server).outcome == .accepted)
                // Out of order: 200 on the wire, dropped by the device.
                #expect(
                    try await LiveActivityTestServer.send(
                        client, server, token: token, jwt: jwt, aps: #""event":"update","timestamp":\#(now + 30),"content-state":{"score":"0-1"}"#
                    ).0 == 200)
                let older = try await LiveActivityTestServer.newest(server)
                #expect(older.outcome == .dropped)
                #expect(older.reason == "LiveActivityOlderThanCurrentContent")
                // A start to an activity token and an update to the push-to-start token are dropped too.
                #expect(
                    try await LiveActivityTestServer.send(
                        client, server, token: LiveActivityTestServer.pushToStart, jwt: jwt,
                        aps: #""event":"update","timestamp":\#(now + 61),"content-state":{"score":"x"}"#
                    ).0 == 200)
                #expect(try await LiveActivityTestServer.newest(server).reason == "LiveActivityUpdateToPushToStartToken")

                // FCM's APNs request for a Live Activity message reaches the same activity.
                let bearer = try await FCMTestServer.accessToken(client, port: server.pushPort)
                let message =
                    #"{"message":{"token":"\#(FCMTestServer.token)","apns":{"live_activity_token":"\#(token)","headers":{"apns-priority":"5"},"payload":{"aps":{"event":"update","timestamp":\#(now + 90),"content-state":{"score":"2-0"}}}}}}"#
                let (fcmStatus, fcmJSON, _) = try await FCMTestServer.send(client, port: server.pushPort, bearer: bearer, body: message)
                #expect(fcmStatus == 200, "\(fcmJSON)")

                let activity = try await server.inspected("/api/v1/activities/\(token)", as: ActivityResource.self)
                #expect(activity.state == "active")
                #expect(activity.attributesType == "MatchAttributes")
                #expect(activity.contentState?["score"] == .string("2-0"))
                let timeline = try #require(activity.timeline)
                #expect(timeline.map(\.event) == ["start", "update", "update", "update"])
                #expect(timeline.map(\.deviceOutcome) == ["applied", "applied", "dropped", "applied"])
                #expect(timeline.map(\.service) == ["apns", "apns", "apns", "fcm"])
                #expect(timeline.allSatisfy { $0.deliveryId != nil }, "every entry names its delivery")

                // Eight hours later the system has ended it: the next update is dropped.
                clock.advance(byMilliseconds: 8 * 3_600_000)
                let later = clock.nowSeconds
                #expect(
                    try await LiveActivityTestServer.send(
                        client, server, token: token, jwt: S.token(issuedAt: later),
                        aps: #""event":"update","timestamp":\#(later),"content-state":{"score":"3-0"}"#
                    ).0 == 200)
                #expect(try await LiveActivityTestServer.newest(server).reason == "LiveActivityExpired")
                let ended = try await server.inspected("/api/v1/activities?state=ended&attributesType=MatchAttributes", as: ActivityList.self)
                #expect(ended.total == 1)
                #expect(try await server.deliveryList("dropReason=LiveActivityExpired").total == 1)
                #expect(try await server.deliveryList("deviceOutcome=dropped").total == 3)
                #expect(await server.inspect("GET", "/api/v1/activities?state=asleep").status == 400)
                #expect(await server.inspect("GET", "/api/v1/activities/\(String(repeating: "0", count: 160))").status == 404)
            }
        }
    }

    @Test("pushes a device applies but will not show as meant are recorded with their diagnostics, through APNs and FCM")
    func diagnostics() async throws {
        let (configuration, clock) = LiveActivityTestServer.configuration()
        try await withPushMockServer(configuration) { server in
            try await withHTTPClient { client in
                let jwt = S.token(issuedAt: clock.nowSeconds)
                let now = clock.nowSeconds
                // The widget extension's topic: no team owns that bundle, and the rejection says why.
                let (widgetStatus, widgetBody) = try await LiveActivityTestServer.send(
                    client, server, token: LiveActivityTestServer.pushToStart, jwt: jwt, aps: LiveActivityTestServer.start(now),
                    topic: "com.example.app.MatchWidget.push-type.liveactivity"
                )
                #expect(widgetStatus == 400 && widgetBody["reason"] as? String == "TopicDisallowed", "\(widgetBody)")
                let widget = try await LiveActivityTestServer.newest(server)
                #expect(
                    widget.diagnostics.contains { $0.contains("com.example.app.MatchWidget, which looks like a widget extension") },
                    "\(widget.diagnostics)")

                // A start with apns-expiration 0 and an empty body.
                let start = LiveActivityTestServer.start(now).replacingOccurrences(of: #""body":"A v B""#, with: #""body":"""#)
                let (status, _) = try await LiveActivityTestServer.send(
                    client, server, token: LiveActivityTestServer.pushToStart, jwt: jwt, aps: start, extra: [("apns-expiration", "0")])
                #expect(status == 200, "APNs accepts it: each of these is a diagnostic")
                let first = try await LiveActivityTestServer.newest(server)
                #expect(first.outcome == .accepted)
                #expect(first.diagnostics.contains { $0.hasPrefix("apns-expiration: 0 on a push-to-start") }, "\(first.diagnostics)")
                #expect(first.diagnostics.contains("aps.alert.body is empty: the push-to-start alert shows no body"), "\(first.diagnostics)")
                let token = try #require(first.issuedActivityToken)

                // The same start again without apns-collapse-id: a second activity, with a diagnostic.
                #expect(
                    try await LiveActivityTestServer.send(
                        client, server, token: LiveActivityTestServer.pushToStart, jwt: jwt, aps: LiveActivityTestServer.start(now)
                    ).0 == 200)
                let second = try await LiveActivityTestServer.newest(server)
                #expect(second.activityID != nil && second.activityID != token)
                #expect(second.diagnostics.contains { $0.contains("while activity \(token) is running") }, "\(second.diagnostics)")

                // An update to the push-to-start token (no device record says what it is): dropped.
                #expect(
                    try await LiveActivityTestServer.send(
                        client, server, token: LiveActivityTestServer.pushToStart, jwt: jwt,
                        aps: #""event":"update","timestamp":\#(now + 1),"content-state":{"score":"1-0"}"#
                    ).0 == 200)
                let wrong = try await LiveActivityTestServer.newest(server)
                #expect(wrong.outcome == .dropped && wrong.reason == "LiveActivityUpdateToPushToStartToken", "\(wrong.outcome) \(wrong.reason ?? "")")

                // Through FCM: the same content state twice, the second with a web URL too.
                let bearer = try await FCMTestServer.accessToken(client, port: server.pushPort)
                func fcm(_ timestamp: Int64, _ state: String) async throws -> Delivery {
                    let message =
                        #"{"message":{"token":"\#(FCMTestServer.token)","apns":{"live_activity_token":"\#(token)","headers":{"apns-topic":"com.example.app.push-type.liveactivity.push-type.liveactivity"},"payload":{"aps":{"event":"update","timestamp":\#(timestamp),"content-state":\#(state)}}}}}"#
                    let (fcmStatus, fcmJSON, _) = try await FCMTestServer.send(client, port: server.pushPort, bearer: bearer, body: message)
                    #expect(fcmStatus == 200, "\(fcmJSON)")
                    return try await LiveActivityTestServer.newest(server)
                }
                let changed = try await fcm(now + 2, #"{"score":"0-0","logo":"https://cdn.example.com/a.png"}"#)
                #expect(changed.diagnostics.contains { $0.hasPrefix("content-state.logo is a web URL") }, "\(changed.diagnostics)")
                #expect(changed.diagnostics.contains { $0.hasPrefix("apns-topic ends in .push-type.liveactivity twice") }, "\(changed.diagnostics)")
                #expect(!changed.diagnostics.contains { $0.hasPrefix("content-state equals") })
                let same = try await fcm(now + 3, #"{"logo":"https://cdn.example.com/a.png","score":"0-0"}"#)
                #expect(same.outcome == .accepted)
                #expect(
                    same.diagnostics.contains { $0.hasPrefix("content-state equals the state the activity already shows") }, "\(same.diagnostics)")

                // The diagnostics are what the inspection API shows.
                let listed = try await server.inspected("/api/v1/deliveries/\(same.id)", as: DeliveryResource.self)
                #expect(listed.diagnostics.contains { $0.hasPrefix("content-state equals") }, "\(listed.diagnostics)")
            }
        }
    }

    @Test("the event stream announces the issued activity token, so a test can continue with updates to it")
    func tokenIssuedEvent() async throws {
        let (configuration, clock) = LiveActivityTestServer.configuration()
        try await withPushMockServer(configuration) { server in
            try await withHTTPClient { client in
                async let events = ServerSentEvents.read(
                    port: server.inspectionPort!, target: "/api/v1/events?pushType=liveactivity&after=0", count: 3)
                #expect(
                    try await LiveActivityTestServer.send(
                        client, server, token: LiveActivityTestServer.pushToStart, jwt: S.token(issuedAt: clock.nowSeconds),
                        aps: LiveActivityTestServer.start(clock.nowSeconds)
                    ).0 == 200)
                let received = try await events.events
                let issued = try #require(received.first { $0.type == "activity" && $0.data["type"] as? String == "activityTokenIssued" })
                let token = try #require(issued.data["activityToken"] as? String)
                #expect(try await token == server.deliveries().last?.issuedActivityToken)
                #expect(issued.data["pushToStartToken"] as? String == LiveActivityTestServer.pushToStart)
                #expect(issued.data["attributesType"] as? String == "MatchAttributes")
                #expect(received.first?.type == "delivery", "the delivery first, then its activity events, same id")
                #expect(Set(received.map(\.id)).count == 1)
            }
        }
    }

    @Test("broadcast: channels created, read, listed, deleted; a broadcast update reaches both subscribed activities")
    func broadcast() async throws {
        let (configuration, clock) = LiveActivityTestServer.configuration()
        try await withPushMockServer(configuration) { server in
            try await withHTTPClient { client in
                let jwt = S.token(issuedAt: clock.nowSeconds)
                let base = "https://localhost:\(server.pushPort)"
                let auth = [("authorization", "bearer \(jwt)")]
                let requestID = "6a1f0b56-3e4a-4d2b-9c55-0f3c2d1e4b7a"
                let (created, _) = try await client.send(
                    base + "/1/apps/com.example.app/channels", method: .POST, headers: auth + [("apns-request-id", requestID)],
                    body: Array(#"{"message-storage-policy":1,"push-type":"LiveActivity"}"#.utf8))
                #expect(created.status == .created)
                #expect(created.headers.first(name: "apns-request-id") == requestID)
                let channel = try #require(created.headers.first(name: "apns-channel-id"))
                #expect(BroadcastChannels.isWellFormedID(channel))
                let (read, readBody) = try await client.send(
                    base + "/1/apps/com.example.app/channels", headers: auth + [("apns-channel-id", channel)])
                #expect(read.status == .ok)
                #expect(String(decoding: readBody, as: UTF8.self) == #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)
                let (_, listBody) = try await client.send(base + "/1/apps/com.example.app/all-channels", headers: auth)
                #expect(String(decoding: listBody, as: UTF8.self) == #"{"channels":["\#(channel)"]}"#)

                let now = clock.nowSeconds
                #expect(
                    try await LiveActivityTestServer.send(
                        client, server, token: LiveActivityTestServer.pushToStart, jwt: jwt, aps: LiveActivityTestServer.start(now, channel: channel)
                    ).0 == 200)
                #expect(
                    try await LiveActivityTestServer.send(
                        client, server, token: LiveActivityTestServer.pushToStart, jwt: jwt, aps: LiveActivityTestServer.start(now, channel: channel)
                    ).0 == 200)
                #expect(
                    try await LiveActivityTestServer.send(
                        client, server, token: LiveActivityTestServer.pushToStart, jwt: jwt, aps: LiveActivityTestServer.start(now)
                    ).0 == 200)
                let tokens = try await server.deliveries(matching: DeliveryFilter(pushType: "liveactivity")).compactMap(\.issuedActivityToken)
                #expect(tokens.count == 3)

                let broadcastHeaders =
                    auth + [("apns-channel-id", channel), ("apns-push-type", "LiveActivity"), ("apns-priority", "10"), ("apns-expiration", "0")]
                let (sent, _) = try await client.send(
                    base + "/4/broadcasts/apps/com.example.app", method: .POST, headers: broadcastHeaders,
                    body: Array(#"{"aps":{"event":"update","timestamp":\#(now + 10),"content-state":{"score":"1-1"}}}"#.utf8))
                #expect(sent.status == .ok)
                #expect(sent.headers.first(name: "apns-request-id") != nil)
                #expect(sent.headers.first(name: "apns-unique-id") != nil)
                for token in tokens.prefix(2) {
                    #expect(server.activity(token)?.timeline.last?.service == .broadcast)
                    #expect(server.activity(token)?.contentState?["score"] == .string("1-1"))
                }
                #expect(server.activity(tokens[2])?.timeline.count == 1, "not subscribed")
                let recorded = try await LiveActivityTestServer.newest(server)
                #expect(recorded.service == .broadcast)
                #expect(recorded.diagnostics.contains("reached 2 subscribed activities: 2 applied, 0 dropped"))
                let listed = try #require(try await server.inspected("/api/v1/channels", as: ChannelList.self).channels.first)
                #expect(listed.subscribers.count == 2)

                let (deleted, _) = try await client.send(
                    base + "/1/apps/com.example.app/channels", method: .DELETE, headers: auth + [("apns-channel-id", channel)])
                #expect(deleted.status == .noContent)
                let (gone, goneBody) = try await client.send(
                    base + "/1/apps/com.example.app/channels", headers: auth + [("apns-channel-id", channel)])
                #expect(gone.status == .badRequest)
                #expect(String(decoding: goneBody, as: UTF8.self).contains("ChannelNotRegistered"))
            }
        }
    }

    @Test(
        "broadcast and channel errors answer with Apple's reasons",
        arguments: [
            (
                "POST", "/1/apps/com.example.app/channels", [], #"{"message-storage-policy":1,"push-type":"LiveActivity","colour":1}"#, 400,
                "BadRequestParams"
            ),
            ("POST", "/1/apps/com.example.app/channels", [], #"{"message-storage-policy":1"#, 400, "BadRequestPayload"),
            ("POST", "/1/apps/com.example.app/channels", [], "", 400, "PayloadEmpty"),
            ("POST", "/1/apps/com.example.app/channels", [], #"{"push-type":"LiveActivity"}"#, 400, "MissingChannelQueueSize"),
            ("POST", "/1/apps/com.example.app/channels", [], #"{"message-storage-policy":1}"#, 400, "MissingPushType"),
            ("POST", "/1/apps/com.example.app/channels", [], #"{"message-storage-policy":1,"push-type":"alert"}"#, 400, "InvalidPushType"),
            (
                "POST", "/1/apps/com.example.app.push-type.liveactivity/channels", [], #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#,
                400, "TopicDisallowed"
            ),
            ("POST", "/1/apps/com.other.app/channels", [], #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#, 403, "TopicMismatch"),
            ("GET", "/1/apps/com.example.app/channels", [], "", 400, "MissingChannelId"),
            ("GET", "/1/apps/com.example.app/channels", [("apns-channel-id", "not base64!")], "", 400, "BadChannelId"),
            ("GET", "/1/apps/com.example.app/channels", [("apns-channel-id", "bm9wZQ==")], "", 400, "ChannelNotRegistered"),
            ("GET", "/1/apps/com.example.app/channels", [("apns-request-id", "nope")], "", 400, "BadMessageId"),
            ("PUT", "/1/apps/com.example.app/channels", [], "", 405, "MethodNotAllowed"),
            ("GET", "/1/apps/com.example.app/things", [], "", 404, "BadPath"),
            (
                "POST", "/1/apps/com.example.app/channels", [("x-second", "1")], #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#, 400,
                "CannotCreateChannelConfig"
            ),
            (
                "POST", "/4/broadcasts/apps/com.example.app",
                [("apns-push-type", "liveactivity"), ("apns-priority", "10"), ("apns-expiration", "0")], "{}", 400, "MissingChannelId"
            ),
        ] as [(String, String, [(String, String)], String, Int, String)])
    func errors(method: String, path: String, headers: [(String, String)], body: String, status: Int, reason: String) async throws {
        var (configuration, clock) = LiveActivityTestServer.configuration()
        configuration.broadcastChannelLimit = 1
        try await withPushMockServer(configuration) { server in
            try await withHTTPClient { client in
                if reason == "CannotCreateChannelConfig" {
                    let (first, _) = try await client.send(
                        "https://localhost:\(server.pushPort)\(path)", method: .POST,
                        headers: [("authorization", "bearer \(S.token(issuedAt: clock.nowSeconds))")], body: Array(body.utf8))
                    #expect(first.status == .created, "the first channel fits the limit of 1")
                }
                let (response, bytes) = try await client.send(
                    "https://localhost:\(server.pushPort)\(path)", method: HTTPMethod(rawValue: method),
                    headers: [("authorization", "bearer \(S.token(issuedAt: clock.nowSeconds))")] + headers,
                    body: body.isEmpty ? nil : Array(body.utf8)
                )
                #expect(Int(response.status.code) == status)
                #expect(
                    (try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])?["reason"] as? String == reason,
                    "\(String(decoding: bytes, as: UTF8.self))")
                #expect(response.headers.first(name: "apns-request-id") != nil, "every channel answer carries apns-request-id")
                #expect(try await server.deliveries().last?.reason == reason, "recorded")
            }
        }
    }

    @Test("broadcast sends: header, body and Live Activity errors on a registered channel")
    func sendErrors() async throws {
        var (configuration, clock) = LiveActivityTestServer.configuration()
        configuration.liveActivityLimits.maxActivities = 100
        try await withPushMockServer(configuration) { server in
            try await withHTTPClient { client in
                let auth = [("authorization", "bearer \(S.token(issuedAt: clock.nowSeconds))")]
                let base = "https://localhost:\(server.pushPort)"
                let (created, _) = try await client.send(
                    base + "/1/apps/com.example.app/channels", method: .POST, headers: auth,
                    body: Array(#"{"message-storage-policy":0,"push-type":"LiveActivity"}"#.utf8))
                let channel = try #require(created.headers.first(name: "apns-channel-id"))
                let now = clock.nowSeconds
                let update = #"{"aps":{"event":"update","timestamp":\#(now),"content-state":{}}}"#
                let good = [("apns-channel-id", channel), ("apns-push-type", "liveactivity"), ("apns-priority", "5"), ("apns-expiration", "0")]
                func without(_ name: String, _ replacement: (String, String)? = nil) -> [(String, String)] {
                    good.filter { $0.0 != name } + (replacement.map { [$0] } ?? [])
                }
                let cases: [([(String, String)], String, Int, String)] = [
                    (without("apns-push-type"), update, 400, "MissingPushType"),
                    (without("apns-push-type", ("apns-push-type", "alert")), update, 400, "InvalidPushType"),
                    (without("apns-priority"), update, 400, "BadPriority"),
                    (without("apns-priority", ("apns-priority", "7")), update, 400, "BadPriority"),
                    (without("apns-expiration"), update, 400, "BadExpirationDate"),
                    (without("apns-expiration", ("apns-expiration", "\(now + 60)")), update, 400, "BadExpirationDate"),
                    (without("apns-channel-id", ("apns-channel-id", "dW5rbm93bg==")), update, 400, "ChannelNotRegistered"),
                    (good, "", 400, "PayloadEmpty"),
                    (good, "[1]", 400, "BadRequestPayload"),
                    (
                        good, #"{"aps":{"event":"update","timestamp":\#(now),"content-state":{},"pad":"\#(String(repeating: "x", count: 5200))"}}"#,
                        413, "PayloadTooLarge"
                    ),
                    (good, #"{"aps":{"event":"start","timestamp":\#(now),"content-state":{}}}"#, 400, "LiveActivityBroadcastCannotStart"),
                    (good, #"{"aps":{"event":"update","timestamp":\#(now * 1000),"content-state":{}}}"#, 400, "LiveActivityTimestampInMilliseconds"),
                ]
                for (headers, body, status, reason) in cases {
                    let (response, bytes) = try await client.send(
                        base + "/4/broadcasts/apps/com.example.app", method: .POST, headers: auth + headers,
                        body: body.isEmpty ? nil : Array(body.utf8))
                    #expect(Int(response.status.code) == status, "\(reason)")
                    #expect((try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])?["reason"] as? String == reason)
                }
                let (ok, _) = try await client.send(
                    base + "/4/broadcasts/apps/com.example.app", method: .POST, headers: auth + good, body: Array(update.utf8))
                #expect(ok.status == .ok, "the channel still takes a valid broadcast")
            }
        }
    }
}
