import Foundation
import NIOCore
import NIOHTTP2
import PushMockCore
import PushMockServer
import PushMockStore
import PushMockTestSupport
import PushMockTesting
import Testing

/// Faults are applied by the one path every push-port request ends through, so each kind fires on
/// every service a fault can name (regression: a `service: oauth` fault was accepted and never fired).
@Suite("A fault fires on every service it can name")
struct FaultsOnEveryServiceTests {
    typealias S = APNSTestServer
    typealias F = FCMTestServer

    enum Kind: String, CaseIterable, Sendable {
        case reject, delay, goAway

        func action(for service: Delivery.Service) -> FaultRule.Action {
            switch self {
            case .reject:
                let reason =
                    switch service {
                    case .fcm: "UNAVAILABLE"
                    case .oauth: "temporarily_unavailable"
                    default: "ServiceUnavailable"
                    }
                return .reject(status: 503, reason: reason)
            case .delay: return .delay(milliseconds: 300)
            case .goAway: return .goAway(reason: "Shutdown")
            }
        }
    }

    /// A request each service accepts, and the status it answers without a fault.
    static func request(_ service: Delivery.Service) -> (path: String, headers: [(String, String)], body: String, status: String) {
        let now = Int64(Date().timeIntervalSince1970)
        switch service {
        case .apns:
            return ("/3/device/\(S.deviceToken)", S.alertHeaders(token: S.token(issuedAt: now)), String(decoding: S.alertBody, as: UTF8.self), "200")
        case .broadcast:
            return (
                "/1/apps/com.example.app/channels", [("authorization", "bearer \(S.token(issuedAt: now))")],
                #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#, "201"
            )
        case .oauth:
            return (
                "/token", [("content-type", "application/x-www-form-urlencoded")],
                "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(F.assertion())", "200"
            )
        default:
            return (
                "/v1/projects/\(F.project)/messages:send",
                [
                    ("content-type", "application/json"),
                    ("authorization", "Bearer \(F.assertion(audience: "https://fcm.googleapis.com/", scope: nil))"),
                ],
                #"{"message":{"token":"\#(F.token)","notification":{"title":"Hi"}}}"#, "200"
            )
        }
    }

    @Test(
        "reject, delay and GOAWAY faults fire on APNs, broadcast, FCM and OAuth", arguments: [Delivery.Service.apns, .broadcast, .fcm, .oauth],
        Kind.allCases)
    func fires(_ service: Delivery.Service, _ kind: Kind) async throws {
        try await withPushMockServer(F.configuration()) { server in
            let id = "\(kind.rawValue)-\(service.rawValue)"
            server.faults.add(FaultRule(id: id, match: .init(service: service), action: kind.action(for: service), count: 1))
            let client = try await H2FrameClient.connect(port: server.pushPort, tls: true)
            defer { Task { await client.close() } }
            let request = Self.request(service)
            let started = ContinuousClock.now
            client.send(streamID: 1, path: request.path, headers: request.headers, body: Array(request.body.utf8))
            let status = try await client.status(of: 1)
            let elapsed = ContinuousClock.now - started
            switch kind {
            case .reject:
                #expect(status == "503", "\(service): the fault's status")
            case .delay:
                #expect(status == request.status)
                #expect(elapsed >= .milliseconds(280), "\(service): answered after the fault's delay, took \(elapsed)")
            case .goAway:
                #expect(status == request.status)
                let frame = try await client.waitFor("GOAWAY") { if case .goAway = $0.payload { true } else { false } }
                guard case .goAway(_, _, let data) = frame.payload else { return }
                #expect(data.map { String(buffer: $0) } == #"{"reason":"Shutdown"}"#)
            }
            let recorded = try await server.deliveries(matching: DeliveryFilter(service: service)).last
            #expect(recorded?.fault == id, "\(service): the delivery names the fault")
            if service == .broadcast {
                // A request a fault rejects changes nothing: the channel exists only when it was answered 201.
                let channels = try await server.inspected("/api/v1/channels", as: ChannelList.self).channels
                #expect(channels.count == (kind == .reject ? 0 : 1), "\(kind): channels \(channels.count)")
            }
            #expect(server.faults.rules.isEmpty, "a count of 1 is spent")
        }
    }
}
