import AsyncHTTPClient
import Foundation
import NIOHTTP1
import PushMockCore
import PushMockPostgres
import PushMockServer
import PushMockStore
import PushMockStores
import PushMockTestSupport
import PushMockTesting
import PushMockTransport
import Testing

/// Simulated Live Activities (with their timelines) and broadcast channels in a store that lasts:
/// kept across restarts (SQLite) and shared by a fleet (PostgreSQL).
@Suite("--store: Live Activities, broadcast channels and OAuth tokens kept and shared")
struct ActivityStateStoreTests {
    typealias L = LiveActivityTestServer
    typealias S = APNSTestServer

    /// Starts an activity (input-push-token) and applies one update; its token and the start time.
    static func startAndUpdate(_ client: HTTPClient, _ server: PushMockServer, jwt: String, now: Int64) async throws -> String {
        #expect(try await L.send(client, server, token: L.pushToStart, jwt: jwt, aps: L.start(now)).0 == 200)
        let token = try #require(try await L.newest(server).issuedActivityToken, "the simulated device issued a token")
        #expect(
            try await L.send(
                client, server, token: token, jwt: jwt, aps: #""event":"update","timestamp":\#(now + 60),"content-state":{"score":"1-0"}"#
            ).0 == 200)
        #expect(try await L.newest(server).outcome == .accepted)
        return token
    }

    /// A configuration for two instances on a fresh database (each issues its own tokens), the
    /// time on its clock and a provider token.
    static func fleetSetup() async throws -> (configuration: PushMockConfiguration, now: Int64, jwt: String) {
        let url = try await PostgresTestDatabase.create().description
        let (base, clock) = L.configuration()
        var configuration = base
        configuration.store = .postgres(url: url)
        configuration.storeOpeners = StoreOpener.all
        configuration.idSeed = nil  // every instance issues its own tokens
        let now = clock.nowSeconds
        return (configuration, now, S.token(issuedAt: now))
    }

    /// An update older than the content shown: dropped only if the device still knows the activity.
    static func olderUpdate(_ client: HTTPClient, _ server: PushMockServer, token: String, jwt: String, now: Int64) async throws -> Delivery {
        #expect(
            try await L.send(
                client, server, token: token, jwt: jwt, aps: #""event":"update","timestamp":\#(now + 30),"content-state":{"score":"0-1"}"#
            ).0 == 200)
        // The second delivery to the activity: its first update came before (both callers).
        return try await L.newest(server, token: token, count: 2)
    }

    @Test("sqlite:PATH keeps activities with their timelines, channels and OAuth tokens across a restart; a reset forgets them")
    func sqliteRestart() async throws {
        let (base, clock) = L.configuration()
        var configuration = base
        configuration.store = .sqlite(
            path: TestScratch.path("activities", extension: "sqlite"))
        configuration.storeOpeners = StoreOpener.all
        let now = clock.nowSeconds
        let jwt = S.token(issuedAt: now)
        let message = #"{"message":{"token":"\#(FCMTestServer.token)","notification":{"title":"after a restart"}}}"#
        let (token, channel, bearer) = try await withPushMockServer(configuration) { server in
            try await withHTTPClient { client in
                (
                    try await Self.startAndUpdate(client, server, jwt: jwt, now: now),
                    try await LiveActivityTestServer.createChannel(client, server, jwt: jwt),
                    try await FCMTestServer.accessToken(client, port: server.pushPort)
                )
            }
        }
        try await withPushMockServer(configuration) { server in
            let kept = try #require(server.activity(token), "the activity is back after the restart")
            #expect(kept.timeline.count == 2 && kept.timeline.allSatisfy { $0.deliveryID != nil && $0.applied })
            #expect(kept.contentState == .object([("score", .string("1-0"))]))
            #expect(kept.attributesType == "MatchAttributes")
            #expect(server.broadcastChannels.map(\.id) == [channel])
            try await withHTTPClient { client in
                let older = try await Self.olderUpdate(client, server, token: token, jwt: jwt, now: now)
                #expect(
                    older.outcome == .dropped && older.reason == "LiveActivityOlderThanCurrentContent",
                    "checked against the kept activity: \(older.reason ?? "accepted")")
                #expect(
                    try await FCMTestServer.send(client, port: server.pushPort, bearer: bearer, body: message).0 == 200,
                    "an access token outlives the restart, as Google's do")
            }
            #expect(server.activity(token)?.timeline.count == 3)
            #expect(await server.inspect("POST", "/api/v1/reset").status == 200)
        }
        try await withPushMockServer(configuration) { server in
            #expect(server.activity(token) == nil, "a reset is kept")
            #expect(server.broadcastChannels.isEmpty)
            try await withHTTPClient { client in
                let status = try await FCMTestServer.send(client, port: server.pushPort, bearer: bearer, body: message).0
                #expect(status == 401, "a reset revoked it, also for the next run")
            }
        }
    }

    @Test(
        "postgres: an activity started through A is updated through B and checked on both; a channel and an OAuth token from A are B's too; a reset reaches both"
    )
    func fleet() async throws {
        let (configuration, now, jwt) = try await ActivityStateStoreTests.fleetSetup()
        try await withPushMockServer(configuration) { a in
            try await withPushMockServer(configuration) { b in
                try await withHTTPClient { client in
                    #expect(try await L.send(client, a, token: L.pushToStart, jwt: jwt, aps: L.start(now)).0 == 200)
                    let token = try #require(try await L.newest(a, token: L.pushToStart, count: 1).issuedActivityToken)
                    #expect(await eventually { b.activity(token) != nil }, "the activity started through A reaches B")

                    #expect(
                        try await L.send(
                            client, b, token: token, jwt: jwt, aps: #""event":"update","timestamp":\#(now + 60),"content-state":{"score":"1-0"}"#
                        ).0 == 200)
                    let update = try await L.newest(b, token: token, count: 1)
                    #expect(update.outcome == .accepted && update.activityID == token)
                    #expect(b.activity(token)?.implicit == false, "B applied it to the started activity, not to one it made up")
                    #expect(await eventually { a.activity(token)?.timeline.count == 2 }, "B's update reaches A's timeline")

                    let older = try await Self.olderUpdate(client, a, token: token, jwt: jwt, now: now)
                    #expect(
                        older.outcome == .dropped && older.reason == "LiveActivityOlderThanCurrentContent",
                        "A checks against B's update: \(older.reason ?? "accepted")")

                    let channel = try await LiveActivityTestServer.createChannel(client, a, jwt: jwt)
                    #expect(await eventually { b.broadcastChannels.map(\.id) == [channel] }, "a channel made on A is listed on B")

                    // An OAuth token from A is good on B at once (a load balancer spreads a sender), until a reset.
                    let bearer = try await FCMTestServer.accessToken(client, port: a.pushPort)
                    let message = #"{"message":{"token":"\#(FCMTestServer.token)","notification":{"title":"via B"}}}"#
                    #expect(try await FCMTestServer.send(client, port: b.pushPort, bearer: bearer, body: message).0 == 200)
                    #expect(await b.inspect("POST", "/api/v1/reset").status == 200)
                    #expect(await eventually { a.activity(token) == nil && a.broadcastChannels.isEmpty }, "B's reset reaches A")
                    // A fresh client: the old connection caches its credential, as a real one would not outlive a reset's revocation check.
                    // The new token generation is a snapshot of its own, announced apart from the
                    // activities and channels: it may reach A a moment after them.
                    var refused = 0
                    _ = await eventually {
                        refused =
                            (try? await withHTTPClient { fresh in
                                try await FCMTestServer.send(fresh, port: a.pushPort, bearer: bearer, body: message).0
                            }) ?? 0
                        return refused == 401
                    }
                    #expect(refused == 401, "a token issued before the reset is refused on A too")
                }
            }
        }
    }
}

/// Pushes to one Live Activity through several instances at once are applied in one order.
@Suite("--store postgres: one Live Activity pushed through two instances at once", .postgres)
struct ActivityOrderTests {
    typealias L = LiveActivityTestServer
    typealias S = APNSTestServer

    /// Two instances on one database and a client: `body(a, b, client, now, jwt)`.
    static func withFleet(_ body: @Sendable (PushMockServer, PushMockServer, HTTPClient, Int64, String) async throws -> Void) async throws {
        let (configuration, now, jwt) = try await ActivityStateStoreTests.fleetSetup()
        try await withPushMockServer(configuration) { a in
            try await withPushMockServer(configuration) { b in
                try await withHTTPClient { client in try await body(a, b, client, now, jwt) }
            }
        }
    }

    /// Starts an activity through A (subscribed to `channel`, if given) and waits until B knows it; its token.
    /// `started` is how many activities the fleet has started, this one included.
    static func startThroughA(
        _ client: HTTPClient, _ a: PushMockServer, _ b: PushMockServer, now: Int64, jwt: String, channel: String? = nil, started: Int = 1
    ) async throws -> String {
        #expect(try await L.send(client, a, token: L.pushToStart, jwt: jwt, aps: L.start(now, channel: channel)).0 == 200)
        let token = try #require(try await L.newest(a, token: L.pushToStart, count: started).issuedActivityToken)
        #expect(
            await eventually { b.activity(token).map { $0.channelID == channel } ?? false },
            "the activity started through A reaches B")
        return token
    }

    /// Sends 20 updates at once, the even ones through A and the odd ones through B: `send(index,
    /// server, aps)` sends one and returns its status, each of which must be 200.
    static func twentyAtOnce(
        _ a: PushMockServer, _ b: PushMockServer, now: Int64, _ send: @escaping @Sendable (Int, PushMockServer, String) async throws -> Int
    ) async throws {
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<20 {
                let server = index % 2 == 0 ? a : b
                let aps = #""event":"update","timestamp":\#(now + 100 + Int64(index)),"content-state":{"score":"\#(index)-0"}"#
                group.addTask { try await send(index, server, aps) }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses)")
    }

    /// Whether `token`'s timeline reaches `count` entries on both instances (each failure named).
    static func expectTimelines(_ a: PushMockServer, _ b: PushMockServer, token: String, count: Int, _ what: String) async {
        for (name, server) in [("A", a), ("B", b)] {
            let complete = await eventually { server.activity(token)?.timeline.count == count }
            #expect(complete, "\(name)'s timeline has \(server.activity(token)?.timeline.count ?? 0) of \(count) entries (\(what))")
        }
    }

    @Test("20 updates at once, half through each instance, are all on the activity's one timeline on both, none lost to a stale copy")
    func concurrentUpdates() async throws {
        try await Self.withFleet { a, b, client, now, jwt in
            let token = try await Self.startThroughA(client, a, b, now: now, jwt: jwt)
            try await Self.twentyAtOnce(a, b, now: now) { _, server, aps in
                try await L.send(client, server, token: token, jwt: jwt, aps: aps, priority: "5").0
            }
            await Self.expectTimelines(a, b, token: token, count: 21, "the start and 20 updates")
        }
    }
}

extension ActivityOrderTests {
    /// Two instances on one database, A giving every turn up as soon as it is read (so a push
    /// through A finishes after its turn), a client and an activity started through A:
    /// `body(a, b, client, token, now, jwt)`.
    static func withImpatientFleet(
        _ body: @Sendable (PushMockServer, PushMockServer, HTTPClient, String, Int64, String) async throws -> Void
    ) async throws {
        let (configuration, now, jwt) = try await ActivityStateStoreTests.fleetSetup()
        var impatient = configuration
        impatient.storeOpeners = [
            StoreOpener(kind: "postgres") { location, options, logger in
                guard case .postgres(let url) = location else { return nil }
                // As the server's own opener connects (its start patience: a loaded machine can
                // take longer than the 10 s default), but giving every turn up at once.
                return try await PostgresDeliveryStore.connect(
                    PostgresLocation(url: url), retention: options.retention, connectPatience: options.startPatience, turnPatience: .zero,
                    logger: logger)
            }
        ]
        try await withPushMockServer(impatient) { a in
            try await withPushMockServer(configuration) { b in
                try await withHTTPClient { client in
                    let token = try await Self.startThroughA(client, a, b, now: now, jwt: jwt)
                    try await body(a, b, client, token, now, jwt)
                    await Self.expectTimelines(a, b, token: token, count: 21, "the start and 20 updates")
                    let deliveries = { (server: PushMockServer) in Set(server.activity(token)?.timeline.compactMap(\.deliveryID) ?? []) }
                    #expect(
                        deliveries(a).count == 21 && deliveries(b).count == 21,
                        "every push once on each: \(deliveries(a).count), \(deliveries(b).count)")
                    #expect(a.activity(token)?.timeline == b.activity(token)?.timeline, "one order on both")
                }
            }
        }
    }

    @Test(
        "updates through an instance whose turns are given up at once are rebased on what the other saved meanwhile: one at a time through A, 10 at once through B, none lost"
    )
    func lateTurns() async throws {
        try await Self.withImpatientFleet { a, b, client, token, now, jwt in
            let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
                group.addTask {
                    var statuses: [Int] = []
                    for index in 0..<10 {
                        let aps = #""event":"update","timestamp":\#(now + 100 + Int64(index)),"content-state":{"score":"a\#(index)"}"#
                        statuses.append(try await L.send(client, a, token: token, jwt: jwt, aps: aps, priority: "5").0)
                    }
                    return statuses
                }
                for index in 0..<10 {
                    group.addTask {
                        let aps = #""event":"update","timestamp":\#(now + 100 + Int64(index)),"content-state":{"score":"b\#(index)"}"#
                        return [try await L.send(client, b, token: token, jwt: jwt, aps: aps, priority: "5").0]
                    }
                }
                return try await group.reduce(into: [Int]()) { $0 += $1 }
            }
            #expect(statuses.count == 20 && statuses.allSatisfy { $0 == 200 }, "\(statuses)")
        }
    }

    @Test(
        "20 updates at once through both, every turn of A given up at once: A's own late pushes wait for each other here, so none is lost and both agree"
    )
    func lateTurnsAtOnce() async throws {
        try await Self.withImpatientFleet { a, b, client, token, now, jwt in
            try await Self.twentyAtOnce(a, b, now: now) { _, server, aps in
                try await L.send(client, server, token: token, jwt: jwt, aps: aps, priority: "5").0
            }
        }
    }

    @Test("FCM messages with apns.live_activity_token take the same turn: 20 updates at once, APNs and FCM through both instances, none lost")
    func concurrentFCMUpdates() async throws {
        try await Self.withFleet { a, b, client, now, jwt in
            let token = try await Self.startThroughA(client, a, b, now: now, jwt: jwt)
            let bearer = try await FCMTestServer.accessToken(client, port: a.pushPort)
            try await Self.twentyAtOnce(a, b, now: now) { index, server, aps in
                if index % 4 < 2 { return try await L.send(client, server, token: token, jwt: jwt, aps: aps, priority: "5").0 }
                // camelCase on some, as the protobuf JSON mapping allows.
                let field = index % 8 < 4 ? "live_activity_token" : "liveActivityToken"
                let message =
                    #"{"message":{"token":"\#(FCMTestServer.token)","apns":{"\#(field)":"\#(token)","headers":{"apns-priority":"5"},"payload":{"aps":{\#(aps)}}}}}"#
                return try await FCMTestServer.send(client, port: server.pushPort, bearer: bearer, body: message).0
            }
            await Self.expectTimelines(a, b, token: token, count: 21, "the start and 20 updates")
            for server in [a, b] {
                #expect(Set(server.activity(token)?.timeline.dropFirst().map(\.service) ?? []) == [.apns, .fcm], "both services on one timeline")
            }
        }
    }

    @Test("broadcasts take the turn of each subscribed activity: 10 at once through both instances, mixed with 10 direct updates, none lost")
    func concurrentBroadcasts() async throws {
        try await Self.withFleet { a, b, client, now, jwt in
            let channel = try await LiveActivityTestServer.createChannel(client, a, jwt: jwt)
            let first = try await Self.startThroughA(client, a, b, now: now, jwt: jwt, channel: channel)
            let second = try await Self.startThroughA(client, a, b, now: now, jwt: jwt, channel: channel, started: 2)
            let headers = [
                ("authorization", "bearer \(jwt)"), ("apns-channel-id", channel), ("apns-push-type", "LiveActivity"), ("apns-priority", "10"),
                ("apns-expiration", "0"),
            ]
            try await Self.twentyAtOnce(a, b, now: now) { index, server, aps in
                if index % 4 >= 2 { return try await L.send(client, server, token: first, jwt: jwt, aps: aps, priority: "5").0 }
                let (sent, _) = try await client.send(
                    "https://localhost:\(server.pushPort)/4/broadcasts/apps/com.example.app", method: .POST, headers: headers,
                    body: Array("{\"aps\":{\(aps)}}".utf8))
                return Int(sent.status.code)
            }
            await Self.expectTimelines(a, b, token: first, count: 21, "the start, 10 broadcasts and 10 direct updates")
            await Self.expectTimelines(a, b, token: second, count: 11, "the start and 10 broadcasts")
        }
    }

    @Test("which requests take an activity's turn: APNs liveactivity pushes and FCM messages naming a live_activity_token")
    func activityKeys() throws {
        func request(_ path: String, _ headers: [(String, String)] = [], body: String = "") -> HTTPServerRequest {
            HTTPServerRequest(
                method: "POST", path: path, headers: HTTPHeaderList(headers.map { HeaderField(name: $0.0, value: $0.1) }), body: Array(body.utf8))
        }
        #expect(ActivityTurns.activityKey(request("/3/device/ABcd", [("apns-push-type", "liveactivity")])) == "activity:" + "abcd")
        #expect(ActivityTurns.activityKey(request("/3/device/abcd", [("apns-push-type", "alert")])) == nil)
        let send = "/v1/projects/p/messages:send"
        #expect(
            ActivityTurns.activityKey(request(send, body: #"{"message":{"token":"t","apns":{"live_activity_token":"EF01"}}}"#)) == "activity:"
                + "ef01")
        #expect(
            ActivityTurns.activityKey(request(send, body: #"{"message":{"token":"t","apns":{"liveActivityToken":"ef02"}}}"#)) == "activity:" + "ef02")
        #expect(ActivityTurns.activityKey(request(send, body: #"{"message":{"token":"t","notification":{"title":"live_activity_token"}}}"#)) == nil)
        #expect(ActivityTurns.activityKey(request(send, body: #"{"message":{"token":"t","apns":{"live_activity_token":""}}}"#)) == nil)
        #expect(ActivityTurns.activityKey(request(send, body: "not json, ctivityToken")) == nil)
        #expect(ActivityTurns.activityKey(request(send, body: #"{"message":{"token":"t"}}"#)) == nil)
    }
}

/// Activity types declared through the API are kept (SQLite) and the fleet's (PostgreSQL).
@Suite("--store: activity types declared through the API")
struct ActivityTypeStoreTests {
    typealias L = LiveActivityTestServer
    typealias S = APNSTestServer

    static let declaration = #"""
        {"attributes": {"home": "String", "away": "String"},
         "contentState": {"score": "String", "minute": "Int?"}}
        """#

    /// An update whose content state misses `score`, through `server`; the recorded delivery.
    static func undecodableUpdate(_ client: HTTPClient, _ server: PushMockServer, token: String, jwt: String, now: Int64) async throws -> Delivery {
        _ = try await L.send(client, server, token: token, jwt: jwt, aps: #""event":"update","timestamp":\#(now + 5),"content-state":{"minute":3}"#)
        return try await L.newest(server, token: token, count: 1)
    }

    @Test("postgres: a type declared through A checks an activity started through A and updated through B; a removal through B reaches A", .postgres)
    func fleet() async throws {
        let (configuration, now, jwt) = try await ActivityStateStoreTests.fleetSetup()
        try await withPushMockServer(configuration) { a in
            try await withPushMockServer(configuration) { b in
                #expect(await a.inspect("PUT", "/api/v1/activity-types/MatchAttributes", body: Self.declaration).status == 200)
                #expect(
                    await eventually { await b.inspect("GET", "/api/v1/activity-types/MatchAttributes").status == 200 },
                    "A's type reaches B")
                try await withHTTPClient { client in
                    #expect(try await L.send(client, a, token: L.pushToStart, jwt: jwt, aps: L.start(now)).0 == 200)
                    let token = try #require(try await L.newest(a, token: L.pushToStart, count: 1).issuedActivityToken)
                    #expect(await eventually { b.activity(token) != nil }, "the activity started through A reaches B")
                    let update = try await Self.undecodableUpdate(client, b, token: token, jwt: jwt, now: now)
                    #expect(
                        update.reason == "LiveActivityContentStateUndecodable", "B checks the update against A's type: \(update.reason ?? "accepted")"
                    )
                    #expect(update.explanation?.contains(#"content-state.score: missing key "score""#) == true, "\(update.explanation ?? "")")
                }
                #expect(await b.inspect("DELETE", "/api/v1/activity-types/MatchAttributes").status == 200)
                #expect(
                    await eventually { await a.inspect("GET", "/api/v1/activity-types/MatchAttributes").status == 404 },
                    "B's removal reaches A")
            }
        }
    }

    @Test("sqlite:PATH keeps a type declared through the API across a restart, and a removal; a reset goes back to the configuration")
    func sqliteRestart() async throws {
        var configuration = PushMockConfiguration.testing()
        configuration.store = .sqlite(
            path: TestScratch.path("types", extension: "sqlite"))
        configuration.storeOpeners = StoreOpener.all
        try await withPushMockServer(configuration) { server in
            #expect(await server.inspect("PUT", "/api/v1/activity-types/MatchAttributes", body: Self.declaration).status == 200)
            #expect(
                await server.inspect("PUT", "/api/v1/activity-types/RideAttributes", body: #"{"attributes":{},"contentState":{"eta":"Date"}}"#).status
                    == 200)
        }
        try await withPushMockServer(configuration) { server in
            let kept = await server.inspect("GET", "/api/v1/activity-types/MatchAttributes")
            #expect(kept.status == 200, "declared before the restart: \(kept.text)")
            #expect(kept.text.contains("minute"), "\(kept.text)")
            #expect(await server.inspect("DELETE", "/api/v1/activity-types/RideAttributes").status == 200)
        }
        try await withPushMockServer(configuration) { server in
            #expect(await server.inspect("GET", "/api/v1/activity-types/MatchAttributes").status == 200)
            #expect(await server.inspect("GET", "/api/v1/activity-types/RideAttributes").status == 404, "a removal is kept")
            #expect(await server.inspect("POST", "/api/v1/reset").status == 200)
        }
        try await withPushMockServer(configuration) { server in
            #expect(await server.inspect("GET", "/api/v1/activity-types/MatchAttributes").status == 404, "a reset is kept")
        }
    }
}
