package import AsyncHTTPClient
import Foundation
import NIOHTTP1
package import PushMockCore
package import PushMockServer
import PushMockTesting
import Testing

/// Live Activities against a test server: a configuration on a manual clock, a liveactivity push,
/// a push-to-start body, and the newest delivery.
package enum LiveActivityTestServer {
    typealias S = APNSTestServer
    package static let topic = "com.example.app.push-type.liveactivity"
    package static let pushToStart = String(repeating: "5a", count: 80)

    /// A configuration on a manual clock at the real time (FCM assertions are signed with it).
    package static func configuration() -> (PushMockConfiguration, PushMockClock) {
        let clock = PushMockClock.manual(startingAt: Int64(Date().timeIntervalSince1970) * 1000)
        var configuration = S.configuration(clock: clock)
        configuration.idSeed = 11
        return (configuration, clock)
    }

    package static func send(
        _ client: HTTPClient, _ server: PushMockServer, token: String, jwt: String, aps: String, priority: String = "10", topic: String = topic,
        extra: [(String, String)] = []
    ) async throws -> (Int, [String: Any]) {
        let (response, body) = try await client.send(
            "https://localhost:\(server.pushPort)/3/device/\(token)", method: .POST,
            headers: S.alertHeaders(token: jwt, topic: topic, extra: [("apns-push-type", "liveactivity"), ("apns-priority", priority)] + extra)
                .filter { $0 != ("apns-push-type", "alert") },
            body: Array(#"{"aps":{\#(aps)}}"#.utf8)
        )
        return (Int(response.status.code), (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:])
    }

    package static func start(_ now: Int64, channel: String? = nil) -> String {
        var aps =
            #""event":"start","timestamp":\#(now),"content-state":{"score":"0-0"},"attributes-type":"MatchAttributes","attributes":{"home":"A","away":"B"},"alert":{"title":"Kick-off","body":"A v B"},"input-push-token":1"#
        if let channel { aps += #","input-push-channel":"\#(channel)""# }
        return aps
    }

    package static func newest(_ server: PushMockServer) async throws -> Delivery {
        try #require(try await server.deliveries().last)
    }

    /// The newest delivery to `token`, once `count` deliveries to it are kept. Read through the
    /// store's wait, which on a fleet's PostgreSQL waits for them to be committed: a plain read
    /// waits for uncommitted writes only as long as the store's patience, which a loaded machine
    /// outlasts (the previous delivery then reads as the newest).
    package static func newest(_ server: PushMockServer, token: String, count: Int) async throws -> Delivery {
        let kept = try await server.waitForDeliveries(matching: DeliveryFilter(deviceToken: token), count: count, timeout: TestDeadline.hang)
        return try #require(kept.last)
    }

    /// A broadcast channel for the sample app; its id.
    package static func createChannel(_ client: HTTPClient, _ server: PushMockServer, jwt: String) async throws -> String {
        let (created, _) = try await client.send(
            "https://localhost:\(server.pushPort)/1/apps/com.example.app/channels", method: .POST,
            headers: [("authorization", "bearer \(jwt)")], body: Array(#"{"message-storage-policy":1,"push-type":"LiveActivity"}"#.utf8)
        )
        #expect(created.status == .created)
        return try #require(created.headers.first(name: "apns-channel-id"))
    }
}
