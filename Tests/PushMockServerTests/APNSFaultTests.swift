import Foundation
import NIOCore
import NIOHTTP2
import PushMockCore
import PushMockInspection
import PushMockServer
import PushMockTestSupport
import PushMockTesting
import Testing

@Suite("Injected APNs faults reach the wire and the record")
struct APNSFaultTests {
    typealias S = APNSTestServer
    let path = "/3/device/\(APNSTestServer.deviceToken)"

    @Test(
        "reasons only faults produce: Forbidden, TooManyRequests, InternalServerError, ServiceUnavailable, Shutdown",
        arguments: [
            (403, "Forbidden"), (429, "TooManyRequests"), (500, "InternalServerError"), (503, "ServiceUnavailable"), (503, "Shutdown"),
        ])
    func rejectFaults(_ status: Int, _ reason: String) async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            server.faults.add(
                FaultRule(
                    id: "f-\(reason)", match: .init(service: .apns, token: APNSTestServer.deviceToken),
                    action: .reject(status: status, reason: reason), count: 1))
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
            let delivery = try await server.deliveryList("reason=\(reason)").deliveries.first
            #expect(delivery?.fault == "f-\(reason)")
            #expect(delivery?.status == status)
        }
    }

    @Test("300 one-shot faults with distinct ids and reasons leave a bounded set of series in /metrics, and every fire counted")
    func boundedFaultSeries() async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            let client = try await H2FrameClient.connect(port: server.pushPort, tls: true)
            defer { Task { await client.close() } }
            let token = S.token(issuedAt: clock.nowSeconds)
            for index in 0..<300 {
                server.faults.add(
                    FaultRule(id: "once-\(index)", match: .init(service: .apns), action: .reject(status: 500, reason: "Reason\(index)"), count: 1))
                let stream = 1 + 2 * index
                client.send(streamID: stream, path: path, headers: S.alertHeaders(token: token), body: S.alertBody)
                _ = try await client.completedStream(stream)
            }
            let metrics = await server.inspect("GET", "/metrics").text
            let faultSeries = metrics.split(separator: "\n").filter { $0.hasPrefix("pushmock_faults_fired_total{") }
            let requestSeries = metrics.split(separator: "\n").filter { $0.hasPrefix("pushmock_requests_total{") }
            #expect(faultSeries.count <= ServerMetricsBound.maxSeries + 1, "\(faultSeries.count) fault series")
            #expect(requestSeries.count <= ServerMetricsBound.maxSeries + 2, "\(requestSeries.count) request series")
            let fired = faultSeries.compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
            #expect(fired == 300, "every fire is counted, the late ones under fault=\"other\"")
            #expect(faultSeries.contains { $0.contains(#"fault="other""#) })
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
            _ = try await client.completedStream(1)
            let frame = try await client.waitFor("GOAWAY") { if case .goAway = $0.payload { true } else { false } }
            guard case .goAway(_, _, let data) = frame.payload else { return }
            #expect(data.map { String(buffer: $0) } == #"{"reason":"Shutdown"}"#)
            // The answer comes first: a strict client (Python's h2) refuses a stream's frames after GOAWAY.
            let frames = client.frames
            let goAwayAt = frames.firstIndex { if case .goAway = $0.payload { true } else { false } }
            let lastOfAnswer = frames.lastIndex { $0.streamID == 1 }
            #expect(goAwayAt != nil && lastOfAnswer != nil && goAwayAt! > lastOfAnswer!, "GOAWAY before the answer's end: \(frames)")
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
            guard case .rstStream(let code) = frames.last?.payload else {
                Issue.record("expected RST_STREAM: \(frames)")
                return
            }
            #expect(code == .cancel)
            server.faults.add(FaultRule(id: "slow", action: .delay(milliseconds: 300), count: 1))
            let started = ContinuousClock.now
            client.send(streamID: 3, path: path, headers: S.alertHeaders(token: token), body: S.alertBody)
            #expect(try await client.status(of: 3) == "200")
            #expect(ContinuousClock.now - started >= .milliseconds(290))
        }
    }
}

/// The metrics' series bound, as a test states it (the server keeps it internal).
enum ServerMetricsBound {
    static let maxSeries = 200
}
