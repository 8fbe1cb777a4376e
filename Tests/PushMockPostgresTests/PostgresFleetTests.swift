import AsyncHTTPClient
import Foundation
import NIOHTTP1
import PushMockCore
import PushMockInspection
import PushMockPostgres
import PushMockServer
import PushMockStore
import PushMockStores
import PushMockTestSupport
import PushMockTesting
import Testing

/// Two servers on one PostgreSQL database behave as one PushMock, on the tests' PostgreSQL
/// (``PostgresTestDatabase``); where there is none, the tests that need it are skipped.
@Suite("--store postgres: a fleet of PushMocks on one database")
struct PostgresFleetTests {
    typealias S = APNSTestServer

    static func configuration(_ url: String) -> PushMockConfiguration {
        var configuration = S.configuration(clock: .system)
        configuration.store = .postgres(url: url)
        configuration.storeOpeners = StoreOpener.all
        return configuration
    }

    /// The faults `server` lists, or nil when the list is not a 200 `FaultList`.
    static func faults(of server: PushMockServer) async -> [FaultResource]? {
        let reply = await server.inspect("GET", "/api/v1/faults")
        return reply.status == 200 ? (try? reply.decode(FaultList.self))?.faults : nil
    }

    @Test(
        "a delivery recorded by either instance is seen by query and wait on both; devices and faults are shared; a count fault fires count times in all",
        .postgres
    )
    func twoInstances() async throws {
        let url = try await PostgresTestDatabase.create().description
        try await withPushMockServer(Self.configuration(url)) { a in
            try await withPushMockServer(Self.configuration(url)) { b in
                try await withHTTPClient { client in
                    // One provider token for the whole test: a new one on a connection within
                    // 20 minutes is answered TooManyProviderTokenUpdates, as APNs does.
                    let issuedAt = PushMockClock.system.nowSeconds
                    // A wait on A for a push that B records.
                    // (A wait counts what is already there: B's push may come before it is registered.)
                    async let waited = a.inspect("GET", "/api/v1/deliveries/wait?token=\(S.deviceToken)&count=1&timeout=60s")
                    #expect(try await APNSTestServer.push(client, b, issuedAt: issuedAt) == 200)
                    let reply = await waited
                    #expect(reply.status == 200, "A's wait returns for B's push: \(reply.text)")
                    for server in [a, b] {
                        #expect(try await server.inspect("GET", "/api/v1/deliveries/wait?count=1&timeout=60s").decode(WaitResult.self).total == 1)
                    }
                    // Ids are unique across the fleet, and a cursor from either instance means the same.
                    let cursor = try await a.store.newestID()
                    #expect(try await APNSTestServer.push(client, a, issuedAt: issuedAt) == 200)
                    #expect(try await APNSTestServer.push(client, b, issuedAt: issuedAt) == 200)
                    for server in [a, b] {
                        let after = await server.inspect("GET", "/api/v1/deliveries/wait?after=\(cursor)&count=2&timeout=60s")
                        let ids = (try? after.decode(WaitResult.self))?.deliveries.map(\.id) ?? []
                        #expect(after.status == 200 && Set(ids).count == 2 && !ids.contains(cursor), "\(after.text)")
                    }

                    // A device set through B is known to A.
                    let device = String(repeating: "0e", count: 32)
                    #expect(
                        await b.inspect("PUT", "/api/v1/devices/\(device)", body: #"{"state":"unregistered","unregisteredAt":1767225600000}"#).status
                            == 200)
                    #expect(
                        await eventually { await a.inspect("GET", "/api/v1/devices/\(device)").status == 200 },
                        "a device set through B reaches A")

                    // A count fault set through A fires 3 times across A and B, not 3 on each.
                    #expect(
                        await a.inspect(
                            "PUT", "/api/v1/faults", body: #"{"id":"thrice","match":{"service":"apns"},"reject":{"reason":"Shutdown"},"count":3}"#
                        ).status == 200)
                    #expect(
                        await eventually { await Self.faults(of: b)?.count == 1 },
                        "the fault reaches B")
                    var statuses: [Int] = []
                    for index in 0..<8 {
                        let server = index % 2 == 0 ? a : b
                        statuses.append(try await APNSTestServer.push(client, server, issuedAt: issuedAt))
                        // A fleet counts in the database (each fire is claimed there) and each
                        // instance lists its own view of the count; only a spent fault is told to
                        // the others, which then drop it.
                        let left = max(0, 3 - statuses.filter { $0 == 503 }.count)
                        let other = index % 2 == 0 ? b : a
                        if left == 0 {
                            let dropped = await eventually { await Self.faults(of: other)?.isEmpty == true }
                            let seen = await Self.faults(of: other)
                            #expect(
                                dropped, "push \(index): the spent fault should leave the other instance's list; it has \(String(describing: seen))")
                        }
                    }
                    #expect(statuses == [503, 503, 503, 200, 200, 200, 200, 200], "\(statuses)")
                }
            }
        }
    }

    @Test(
        "a count fault fires exactly count times across the fleet under a burst to both instances, also one for a single APNs or FCM token among others",
        .postgres
    )
    func countFaultBurst() async throws {
        let url = try await PostgresTestDatabase.create().description
        var configuration = Self.configuration(url)
        configuration.fcm.serviceAccounts = [.pem(FCMTestServer.material.fcmServiceAccountJSON)]
        try await withPushMockServer(configuration) { a in
            try await withPushMockServer(configuration) { b in
                try await withHTTPClient { client in
                    let issuedAt = PushMockClock.system.nowSeconds
                    // One push each first: the connections are bound to the provider token.
                    #expect(try await APNSTestServer.push(client, a, issuedAt: issuedAt) == 200)
                    #expect(try await APNSTestServer.push(client, b, issuedAt: issuedAt) == 200)

                    /// 40 pushes at once, half through each instance (to `token` at even indexes, if given); the statuses.
                    func burst(other token: String? = nil) async throws -> [Int] {
                        try await withThrowingTaskGroup(of: Int.self) { group in
                            for index in 0..<40 {
                                let server = index % 2 == 0 ? a : b
                                let target = token.flatMap { index % 4 < 2 ? $0 : nil } ?? S.deviceToken
                                group.addTask { try await APNSTestServer.push(client, server, token: target, issuedAt: issuedAt) }
                            }
                            return try await group.reduce(into: []) { $0.append($1) }
                        }
                    }

                    #expect(
                        await a.inspect(
                            "PUT", "/api/v1/faults", body: #"{"id":"thrice","match":{"service":"apns"},"reject":{"reason":"Shutdown"},"count":3}"#
                        ).status == 200)
                    #expect(
                        await eventually { await Self.faults(of: b)?.count == 1 },
                        "the fault reaches B")
                    let statuses = try await burst()
                    #expect(
                        statuses.filter { $0 == 503 }.count == 3,
                        "fired \(statuses.filter { $0 == 503 }.count) times in a burst across A and B: \(statuses)")
                    #expect(statuses.filter { $0 == 200 }.count == 37)
                    for server in [a, b] {
                        #expect(
                            await eventually { await Self.faults(of: server)?.isEmpty == true },
                            "the spent fault is gone")
                    }

                    // Matching one APNs device token: pushes to another never take a fire (the path names the token).
                    #expect(
                        await b.inspect(
                            "PUT", "/api/v1/faults",
                            body: #"{"id":"twice","match":{"service":"apns","token":"\#(S.deviceToken)"},"reject":{"reason":"Shutdown"},"count":2}"#
                        ).status == 200)
                    #expect(
                        await eventually { await Self.faults(of: a)?.count == 1 },
                        "the fault reaches A")
                    let other = String(repeating: "0f", count: 32)
                    let mixed = try await burst(other: other)
                    #expect(mixed.filter { $0 == 503 }.count == 2, "fired \(mixed.filter { $0 == 503 }.count) times: \(mixed)")
                    #expect(mixed.filter { $0 == 200 }.count == 38)

                    // FCM names its token in the body: read before the claim too, so sends to another token
                    // take no fire, and the fault fires exactly twice.
                    typealias F = FCMTestServer
                    #expect(
                        await a.inspect(
                            "PUT", "/api/v1/faults",
                            body:
                                #"{"id":"fcm-twice","match":{"service":"fcm","token":"\#(F.token)"},"reject":{"status":503,"reason":"UNAVAILABLE"},"count":2}"#
                        ).status == 200)
                    #expect(
                        await eventually { await Self.faults(of: b)?.count == 1 },
                        "the FCM fault reaches B")
                    let bearer = try await F.accessToken(client, port: a.pushPort)
                    let fcm = try await withThrowingTaskGroup(of: Int.self) { group in
                        for index in 0..<40 {
                            let server = index % 2 == 0 ? a : b
                            let token = index % 4 < 2 ? "b3RoZXItaW5zdGFuY2UwMDAy:APA91b" + String(repeating: "Zx9", count: 40) : F.token
                            let body = #"{"message":{"token":"\#(token)","notification":{"title":"burst"}}}"#
                            group.addTask { try await F.send(client, port: server.pushPort, bearer: bearer, body: body).0 }
                        }
                        return try await group.reduce(into: [Int]()) { $0.append($1) }
                    }
                    #expect(fcm.filter { $0 == 503 }.count == 2, "fired \(fcm.filter { $0 == 503 }.count) times: \(fcm)")
                    #expect(fcm.filter { $0 == 200 }.count == 38, "\(fcm)")
                }
            }
        }
    }

    @Test("a fault sequence's steps are used in turn across the fleet: 503 on A, 429 on B, then accepted on A; then it is gone from both", .postgres)
    func sequenceAcrossFleet() async throws {
        let url = try await PostgresTestDatabase.create().description
        try await withPushMockServer(Self.configuration(url)) { a in
            try await withPushMockServer(Self.configuration(url)) { b in
                try await withHTTPClient { client in
                    let issuedAt = PushMockClock.system.nowSeconds
                    let put = await a.inspect(
                        "PUT", "/api/v1/faults",
                        body: #"""
                            {"id":"retry","match":{"service":"apns"},
                            "sequence":[{"reject":{"reason":"ServiceUnavailable"}},{"reject":{"reason":"TooManyRequests","retryAfter":1}},{"accept":true}]}
                            """#)
                    #expect(put.status == 200, "\(put.text)")
                    #expect(await eventually { await Self.faults(of: b)?.count == 1 }, "the sequence reaches B")
                    var statuses: [Int] = []
                    for server in [a, b, a] { statuses.append(try await APNSTestServer.push(client, server, issuedAt: issuedAt)) }
                    #expect(statuses == [503, 429, 200], "one step per request, whichever instance takes it")
                    for server in [a, b] {
                        #expect(await eventually { await Self.faults(of: server)?.isEmpty == true }, "every step used: gone")
                    }
                    #expect(try await APNSTestServer.push(client, b, issuedAt: issuedAt) == 200)
                }
            }
        }
    }

    @Test(
        "Web Push subscriptions are shared: minted on A, pushed to through B, expired through B answers 410 on A, removed on A is gone from B",
        .postgres)
    func webPushAcrossFleet() async throws {
        let url = try await PostgresTestDatabase.create().description
        try await withPushMockServer(Self.configuration(url)) { a in
            try await withPushMockServer(Self.configuration(url)) { b in
                try await withHTTPClient { client in
                    let sender = WebPushTestSender()
                    let minted = await a.inspect(
                        "POST", "/api/v1/web-push/subscriptions", body: #"{"service":"apple","applicationServerKey":"\#(sender.publicKey)"}"#)
                    let subscription = try minted.decode(WebPushSubscriptionResource.self)
                    #expect(minted.status == 201)
                    let path = String(subscription.endpoint.dropFirst("https://localhost:\(a.pushPort)".count))
                    #expect(
                        await eventually { await b.inspect("GET", "/api/v1/web-push/subscriptions/\(subscription.id)").status == 200 },
                        "a subscription minted on A reaches B")
                    func push(_ server: PushMockServer) async throws -> Int {
                        let origin = "https://localhost:\(server.pushPort)"
                        let now = Int64(Date().timeIntervalSince1970)
                        let (response, _) = try await client.send(
                            origin + path, method: .POST,
                            headers: [
                                ("ttl", "60"), ("content-encoding", "aes128gcm"),
                                ("authorization", try sender.authorization(aud: origin, exp: now + 3600, sub: "mailto:ops@example.com")),
                            ],
                            body: try WebPushTestSender.encrypt(Array("fleet".utf8), p256dh: subscription.keys.p256dh, auth: subscription.keys.auth))
                        return Int(response.status.code)
                    }
                    #expect(try await push(b) == 201, "B opens a push to A's subscription with the keys A minted")
                    let waited = try await a.inspect("GET", "/api/v1/deliveries/wait?service=webpush&count=1&timeout=60s").decode(WaitResult.self)
                    let recorded = try #require(waited.deliveries.first, "B's push is seen on A")
                    #expect(recorded.body == "fleet" && recorded.deviceToken == subscription.id)

                    #expect(await b.inspect("POST", "/api/v1/web-push/subscriptions/\(subscription.id)/expire").status == 200)
                    #expect(
                        await eventually {
                            (try? await a.inspect("GET", "/api/v1/web-push/subscriptions/\(subscription.id)").decode(WebPushSubscriptionResource.self))?
                                .state == "expired"
                        }, "expired through B reaches A")
                    #expect(try await push(a) == 410)
                    #expect(await a.inspect("DELETE", "/api/v1/web-push/subscriptions/\(subscription.id)").status == 200)
                    #expect(
                        await eventually { await b.inspect("GET", "/api/v1/web-push/subscriptions/\(subscription.id)").status == 404 },
                        "removed on A is gone from B")
                    #expect(try await push(b) == 404)
                }
            }
        }
    }

    @Test("a database that cannot be reached is refused at start in one line that names it without the password")
    func unreachable() async throws {
        var configuration = PushMockConfiguration.testing()
        configuration.store = .postgres(url: "postgres://pushmock:s3cret@127.0.0.1:1/pushmock")
        configuration.storeOpeners = StoreOpener.all
        configuration.storeStartPatience = .seconds(2)  // nothing listens there: no need to wait long
        do {
            try await withPushMockServer(configuration) { _ in }
            Issue.record("a server started on an unreachable database")
        } catch let error as PushMockError {
            #expect(error.message.contains("postgres://pushmock@127.0.0.1:1/pushmock"), "\(error.message)")
            #expect(!error.message.contains("s3cret"))
            #expect(!error.message.contains("\n"))
        }
        #expect(try StoreLocation(parsing: "postgres://u:p@db:6543/x") == .postgres(url: "postgres://u:p@db:6543/x"))
        #expect(try StoreLocation(parsing: "postgres") == .postgres(url: nil))
        #expect(StoreLocation.postgres(url: "postgres://u:p@db:6543/x").description == "postgres://u@db:6543/x")
        #expect(throws: PushMockError.self) { try StoreLocation(parsing: "postgres://db/x?sslmode=sometimes") }
    }
}
