import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import PushMockCore
import PushMockTestSupport
import PushMockTesting
import Testing

@testable import PushMockInspection
@testable import PushMockServer

/// Event streams and long-polls must never take every connection of the inspection port: 520 of
/// them locked out /livez and /metrics when its cap (512) was below --max-event-subscribers (1 000).
@Suite("The inspection port keeps room for /livez and /metrics")
struct InspectionReserveTests {
    typealias S = APNSTestServer

    @Test("streams and long-polls are each capped at half the inspection port's cap less its reserve, whatever --max-event-subscribers says")
    func capsLeaveTheReserve() {
        var configuration = S.configuration()
        configuration.maxEventSubscribers = 100_000
        let inspection = DescriptorLimit.caps(descriptors: DescriptorLimit.raiseToHardLimit(), cleartext: false).inspection
        let each = PushMockServer.longRequestCap(configuration)
        #expect(each >= 1)
        #expect(2 * each <= inspection - 4, "streams \(each) + long-polls \(each) leave no reserve of the inspection port's \(inspection)")
    }

    @Test("long-polls past their cap get 503 at once; /livez and /metrics still answer")
    func longPollCap() async throws {
        var configuration = S.configuration()
        configuration.maxEventSubscribers = 1
        // A small cap keeps the test light beside the rest of the suite (the derived one is checked above).
        configuration.maxLongPolls = 5
        try await withPushMockServer(configuration) { server in
            let cap = 5
            let base = "http://127.0.0.1:\(server.inspectionPort!)"
            // Raw connections (an HTTP client pools a few per host): each holds one long-poll.
            var waiting: [RawClient] = []
            for _ in 0..<cap {
                let raw = try await RawClient.connect(port: server.inspectionPort!)
                try await raw.send(Array("GET /api/v1/deliveries/wait?timeout=120s HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n".utf8))
                waiting.append(raw)
            }
            // Every held long-poll has its slot before the probes start (a probe that came first
            // would take the last slot, and the last held one would be refused).
            let held = await eventually { server.inspection.longPolls.count == cap }
            #expect(held, "\(server.inspection.longPolls.count) of \(cap) long-polls admitted")
            try await withHTTPClient { client in
                // Once every slot is taken, one more is refused at once (until then, a 1 ms wait
                // is admitted and answers 408 at once).
                var refused: (Int, String) = (0, "")
                var seen: [Int: Int] = [:]
                for _ in 0..<600 {
                    // (A pooled connection the server has just closed fails the request: try again.)
                    guard let (response, body) = try? await client.send(base + "/api/v1/deliveries/wait?timeout=1ms") else {
                        seen[-1, default: 0] += 1
                        continue
                    }
                    refused = (Int(response.status.code), String(decoding: body, as: UTF8.self))
                    seen[refused.0, default: 0] += 1
                    // A held long-poll that was answered can never give its slot back: stop here and say what it got.
                    if refused.0 == 503 || waiting.contains(where: { !$0.bytes.isEmpty }) { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(refused.0 == 503, "\(refused); answers seen: \(seen)")
                #expect(refused.1.contains("long-polls are waiting"), "\(refused.1)")
                let (live, _) = try await client.send(base + "/livez")
                #expect(live.status == .ok)
                let (metrics, _) = try await client.send(base + "/metrics")
                #expect(metrics.status == .ok)
            }
            #expect(
                waiting.allSatisfy { $0.bytes.isEmpty },
                "the long-polls were answered early: \(waiting.map { String(decoding: $0.bytes, as: UTF8.self) })")
            for raw in waiting { try? await raw.channel.close() }
        }
    }

    @Test("an FCM body past --max-body-size is 413, not a 400 judged on the cut-off body")
    func fcmBodyTooLarge() async throws {
        try await withPushMockServer(FCMTestServer.configuration()) { server in
            try await withHTTPClient { client in
                let bearer = try await FCMTestServer.accessToken(client, port: server.pushPort)
                let body = #"{"message":{"token":"t","data":{"a":""# + String(repeating: "x", count: 70_000) + #""}}}"#
                let (status, json, _) = try await FCMTestServer.send(client, port: server.pushPort, bearer: bearer, body: body)
                #expect(status == 413)
                let error = json["error"] as? [String: Any]
                #expect(error?["code"] as? Int == 413)
                #expect((error?["message"] as? String)?.contains("--max-body-size") == true, "\(json)")
            }
            #expect(try await server.deliveryList("service=fcm").deliveries.first?.status == 413)
        }
    }
}
