import Foundation
import NIOCore
import NIOHTTP2
import PushMockCore
import PushMockServer
import PushMockTestSupport
import PushMockTesting
import Testing

@Suite("Injected APNs faults reach the wire and the record")
struct APNSFaultTests {
    typealias S = APNSTestServer
    let path = "/3/device/\(APNSTestServer.deviceToken)"

    @Test("reasons only faults produce: Forbidden, TooManyRequests, InternalServerError, ServiceUnavailable, Shutdown", arguments: [
        (403, "Forbidden"), (429, "TooManyRequests"), (500, "InternalServerError"), (503, "ServiceUnavailable"), (503, "Shutdown"),
    ])
    func rejectFaults(_ status: Int, _ reason: String) async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            server.faults.add(FaultRule(id: "f-\(reason)", match: .init(service: .apns, token: APNSTestServer.deviceToken), action: .reject(status: status, reason: reason), count: 1))
            let client = try await H2FrameClient.connect(port: server.pushPort, tls: true)
            defer { Task { await client.close() } }
            let token = S.token(issuedAt: clock.nowSeconds)
            client.send(streamID: 1, path: path, headers: S.alertHeaders(token: token), body: S.alertBody)
            _ = try await client.completedStream(1)
            #expect(try await client.status(of: 1) == String(status))
            #expect(try await client.json(of: 1)["reason"] as? String == reason)
            #expect(client.responseHeaders(of: 1)["apns-id"] != nil)
            client.send(streamID: 3, path: path, headers: S.alertHeaders(token: token), body: S.alertBody)
            #expect(try await client.status(of: 3) == "200", "a count of 1 fires once")
            let (_, list) = try await S.inspect(server, "/api/v1/deliveries?reason=\(reason)")
            let delivery = (list["deliveries"] as? [[String: Any]])?.first
            #expect(delivery?["fault"] as? String == "f-\(reason)")
            #expect(delivery?["status"] as? Int == status)
        }
    }

    @Test("a GOAWAY fault answers the push, then sends GOAWAY with the reason")
    func goAwayFault() async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            server.faults.add(FaultRule(id: "bye", action: .goAway(reason: "Shutdown"), count: 1))
            let client = try await H2FrameClient.connect(port: server.pushPort, tls: true)
            client.send(streamID: 1, path: path, headers: S.alertHeaders(token: S.token(issuedAt: clock.nowSeconds)), body: S.alertBody)
            #expect(try await client.status(of: 1) == "200")
            let frame = try await client.waitFor("GOAWAY") { if case .goAway = $0.payload { true } else { false } }
            guard case .goAway(_, _, let data) = frame.payload else { return }
            #expect(data.map { String(buffer: $0) } == #"{"reason":"Shutdown"}"#)
            try await client.channel.closeFuture.get()
        }
    }

    @Test("a reset fault resets the stream; a delay fault answers later")
    func resetAndDelay() async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            server.faults.add(FaultRule(id: "rst", action: .resetStream, count: 1))
            let client = try await H2FrameClient.connect(port: server.pushPort, tls: true)
            defer { Task { await client.close() } }
            let token = S.token(issuedAt: clock.nowSeconds)
            client.send(streamID: 1, path: path, headers: S.alertHeaders(token: token), body: S.alertBody)
            let frames = try await client.completedStream(1)
            guard case .rstStream(let code) = frames.last?.payload else { Issue.record("expected RST_STREAM: \(frames)"); return }
            #expect(code == .cancel)
            server.faults.add(FaultRule(id: "slow", action: .delay(milliseconds: 300), count: 1))
            let started = ContinuousClock.now
            client.send(streamID: 3, path: path, headers: S.alertHeaders(token: token), body: S.alertBody)
            #expect(try await client.status(of: 3) == "200")
            #expect(ContinuousClock.now - started >= .milliseconds(290))
        }
    }
}
