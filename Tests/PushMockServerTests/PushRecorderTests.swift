import AsyncHTTPClient
import Foundation
import NIOHTTP1
import PushMockCore
import PushMockServer
import PushMockStore
import PushMockTestSupport
import PushMockTesting
import Testing

/// The one recorder every push-port endpoint ends in: each request recorded once, with the fault
/// that fired for it, for all six services alike.
@Suite("One recorder: every service's request is recorded once, and its faults apply, a delay once")
struct PushRecorderTests {
    typealias S = APNSTestServer
    typealias L = LiveActivityTestServer

    /// One request of `service`: its HTTP status.
    static func send(_ service: Delivery.Service, _ client: HTTPClient, _ server: PushMockServer, jwt: String, bearer: String) async throws -> Int {
        let base = "https://localhost:\(server.pushPort)"
        switch service {
        case .apns:
            let (response, _) = try await client.send(
                base + "/3/device/\(S.deviceToken)", method: .POST, headers: S.alertHeaders(token: jwt), body: S.alertBody)
            return Int(response.status.code)
        case .broadcast:
            let (response, _) = try await client.send(base + "/1/apps/com.example.app/all-channels", headers: [("authorization", "bearer \(jwt)")])
            return Int(response.status.code)
        case .fcm:
            let message = #"{"message":{"token":"\#(FCMTestServer.token)","notification":{"title":"Hi"}}}"#
            return try await FCMTestServer.send(client, port: server.pushPort, bearer: bearer, body: message).0
        case .iid:
            return try await TopicManagementTests.batch(
                client, port: server.pushPort, topic: "news", tokens: [TopicManagementTests.token(1)], bearer: bearer
            ).0
        case .webpush:
            let subscription = try await WebPushTests.mint(server, "mozilla")
            let (response, _) = try await client.send(subscription.endpoint, method: .POST, headers: [("ttl", "60")])
            return Int(response.status.code)
        default:
            let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(FCMTestServer.assertion())"
            let (response, _) = try await client.send(
                base + "/token", method: .POST, headers: [("content-type", "application/x-www-form-urlencoded")], body: Array(form.utf8))
            return Int(response.status.code)
        }
    }

    @Test(
        "for APNs, broadcast, FCM, IID, OAuth and Web Push: a delay fault answers once late and records once; a reject fault answers its status and records once",
        arguments: Delivery.Service.all)
    func everyService(_ service: Delivery.Service) async throws {
        let (configuration, clock) = L.configuration()
        try await withPushMockServer(configuration) { server in
            try await withHTTPClient { client in
                let jwt = S.token(issuedAt: clock.nowSeconds)
                let bearer = try await FCMTestServer.accessToken(client, port: server.pushPort)
                func recorded() async throws -> [Delivery] { try await server.deliveries(matching: DeliveryFilter(service: service)) }

                let before = try await recorded().count
                #expect(try await Self.send(service, client, server, jwt: jwt, bearer: bearer) < 400, "\(service) answers without a fault")
                #expect(try await recorded().count == before + 1, "recorded once")

                server.faults.add(FaultRule(id: "slow-\(service)", match: .init(service: service), action: .delay(milliseconds: 15_000), count: 1))
                let started = ContinuousClock.now
                #expect(try await Self.send(service, client, server, jwt: jwt, bearer: bearer) < 400)
                let elapsed = ContinuousClock.now - started
                // Applied twice, it would take 30 s at least: the 15 s between leave room for a busy
                // machine's own slowness (5 s seen with both cores kept busy).
                #expect(elapsed >= .milliseconds(14_990), "\(service): the delay applies (\(elapsed))")
                #expect(elapsed < .milliseconds(30_000), "\(service): once, not twice (\(elapsed))")
                let delayed = try await recorded()
                #expect(delayed.count == before + 2, "recorded once")
                #expect(delayed.last?.fault == "slow-\(service)")

                server.faults.add(
                    FaultRule(id: "no-\(service)", match: .init(service: service), action: .reject(status: 503, reason: "Unavailable"), count: 1))
                #expect(try await Self.send(service, client, server, jwt: jwt, bearer: bearer) == 503, "\(service): the fault's status on the wire")
                let rejected = try await recorded()
                #expect(rejected.count == before + 3, "recorded once")
                #expect(rejected.last?.fault == "no-\(service)")
                #expect(rejected.last?.status == 503)
                #expect(rejected.last?.outcome == .rejected)
            }
        }
    }
}
