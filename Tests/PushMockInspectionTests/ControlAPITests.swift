import AsyncHTTPClient
import Crypto
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

@Suite("Control API: wait, devices, faults, reset")
struct ControlAPITests {
    typealias S = APNSTestServer

    @Test("wait returns as soon as the delivery arrives, not at the timeout")
    func waitReturnsOnArrival() async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            try await withHTTPClient { client in
                let started = ContinuousClock.now
                async let waited = server.inspect("GET", "/api/v1/deliveries/wait?service=apns&count=2&timeout=300s")
                // The pushes go once the wait is waiting.
                #expect(await eventually { await server.store.statistics().waiters == 1 }, "the wait was registered")
                #expect(try await APNSTestServer.push(client, server, issuedAt: clock.nowSeconds) == 200)
                #expect(try await APNSTestServer.push(client, server, issuedAt: clock.nowSeconds) == 200)
                let reply = await waited
                let elapsed = ContinuousClock.now - started
                #expect(reply.status == 200)
                let result = try reply.decode(WaitResult.self)
                #expect(result.total == 2)
                #expect(result.timedOut == false)
                #expect(elapsed < TestDeadline.hang, "returned after \(elapsed), long before the 300 s timeout")
                #expect(await server.store.statistics().waiters == 0)
            }
        }
    }

    @Test("wait answers 408 with what it has at the timeout; already-present deliveries count; bad parameters are 400")
    func waitTimeoutAndExisting() async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            try await withHTTPClient { client in
                #expect(try await APNSTestServer.push(client, server, issuedAt: clock.nowSeconds) == 200)
                let present = await server.inspect("GET", "/api/v1/deliveries/wait?count=1&timeout=60s")
                #expect(present.status == 200)
                let presentResult = try present.decode(WaitResult.self)
                #expect(presentResult.total == 1)
                let newest = try #require(presentResult.newestId)
                let started = ContinuousClock.now
                let late = await server.inspect("GET", "/api/v1/deliveries/wait?after=\(newest)&count=1&timeout=300ms")
                #expect(late.status == 408)
                #expect(try late.decode(WaitResult.self).total == 0)
                #expect(ContinuousClock.now - started >= .milliseconds(250))
                #expect(await server.store.statistics().waiters == 0, "a timed-out waiter is removed")
                let bad = await server.inspect("GET", "/api/v1/deliveries/wait?count=zero")
                #expect(bad.status == 400)
                #expect(bad.errorMessage?.contains("count") == true)
                #expect(await server.inspect("GET", "/api/v1/deliveries/wait?colour=red").status == 400)
            }
        }
    }

    @Test("devices: PUT, GET, DELETE change what pushes get")
    func devices() async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            try await withHTTPClient { client in
                let token = APNSTestServer.deviceToken
                let put = await server.inspect(
                    "PUT", "/api/v1/devices/\(token)", body: #"{"state":"unregistered","unregisteredAt":1454948015990}"#)
                #expect(put.status == 200)
                #expect(try put.decode(DeviceResource.self).state == "unregistered")
                #expect(try await APNSTestServer.push(client, server, issuedAt: clock.nowSeconds) == 410)
                let got = try await server.inspected("/api/v1/devices/\(token)", as: DeviceResource.self)
                #expect(got.unregisteredAt == 1_454_948_015_990)
                #expect(try await server.inspected("/api/v1/devices", as: DeviceList.self).devices.count == 1)
                let bad = await server.inspect("PUT", "/api/v1/devices/\(token)", body: #"{"state":"gone"}"#)
                #expect(bad.status == 400)
                #expect(bad.errorMessage?.contains("state") == true)
                #expect(await server.inspect("DELETE", "/api/v1/devices/\(token)").status == 200)
                #expect(try await APNSTestServer.push(client, server, issuedAt: clock.nowSeconds) == 200)
                #expect(await server.inspect("GET", "/api/v1/devices/\(token)").status == 404)
            }
        }
    }

    @Test("faults: PUT fires for the next N, GET lists, DELETE clears; reset restores the configuration")
    func faultsAndReset() async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            try await withHTTPClient { client in
                let put = await server.inspect(
                    "PUT", "/api/v1/faults", body: #"{"id":"gone","match":{"service":"apns"},"reject":{"reason":"Unregistered"},"count":1}"#)
                #expect(put.status == 200)
                let rule = try put.decode(FaultResource.self)
                #expect(rule.reject?.status == 410)
                #expect(try await server.inspected("/api/v1/faults", as: FaultList.self).faults.first?.id == "gone")
                #expect(try await APNSTestServer.push(client, server, issuedAt: clock.nowSeconds) == 410)
                #expect(try await APNSTestServer.push(client, server, issuedAt: clock.nowSeconds) == 200)
                let bad = await server.inspect("PUT", "/api/v1/faults", body: #"{"match":{}}"#)
                for status in [100, 101, 199, 600] {
                    let informational = await server.inspect(
                        "PUT", "/api/v1/faults", body: #"{"match":{},"reject":{"status":\#(status),"reason":"X"}}"#)
                    #expect(informational.status == 400, "status \(status)")
                    #expect(informational.errorMessage?.contains("reject.status") == true, "\(informational.text)")
                }
                for status in [204, 205, 304] {
                    let bodyless = await server.inspect(
                        "PUT", "/api/v1/faults", body: #"{"match":{},"reject":{"status":\#(status),"reason":"X"}}"#)
                    #expect(bodyless.status == 400, "status \(status)")
                    #expect(bodyless.errorMessage?.contains("has no body") == true, "\(bodyless.text)")
                }
                #expect(bad.status == 400)
                _ = await server.inspect("PUT", "/api/v1/faults", body: #"{"id":"slow","delayMilliseconds":10}"#)
                _ = await server.inspect("PUT", "/api/v1/devices/abcd", body: #"{"state":"expired"}"#)
                let reset = await server.inspect("POST", "/api/v1/reset")
                #expect(reset.status == 200)
                #expect(try reset.decode(ResetResult.self).reset)
                #expect(await server.store.statistics().count == 0)
                #expect(server.faults.rules.isEmpty)
                #expect(server.devices.all.isEmpty)
                #expect(await server.inspect("GET", "/api/v1/reset").status == 405)
            }
        }
    }
}

extension ControlAPITests {
    @Test("faults: a sequence answers 503, 429, then as usual, one step per matching request; GET shows the next step; it goes once used")
    func faultSequence() async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            try await withHTTPClient { client in
                let put = await server.inspect(
                    "PUT", "/api/v1/faults",
                    body:
                        #"{"id":"retry","match":{"service":"apns"},"sequence":[{"reject":{"reason":"ServiceUnavailable"}},{"reject":{"reason":"TooManyRequests"}},{"accept":true},{"reject":{"status":500,"reason":"InternalServerError"}}]}"#
                )
                #expect(put.status == 200, "\(put.text)")
                let rule = try put.decode(FaultResource.self)
                #expect(rule.sequence?.count == 4 && rule.nextStep == 0 && rule.count == 4 && rule.reject == nil, "\(put.text)")
                #expect(rule.sequence?[1].reject?.status == 429 && rule.sequence?[2].accept == true)
                var statuses: [Int] = []
                for _ in 0..<3 { statuses.append(try await APNSTestServer.push(client, server, issuedAt: clock.nowSeconds)) }
                #expect(statuses == [503, 429, 200])
                let listed = try await server.inspected("/api/v1/faults", as: FaultList.self).faults.first
                #expect(listed?.nextStep == 3 && listed?.count == 1 && listed?.hits == 3, "\(String(describing: listed))")
                #expect(try await APNSTestServer.push(client, server, issuedAt: clock.nowSeconds) == 500)
                #expect(try await server.inspected("/api/v1/faults", as: FaultList.self).faults.isEmpty, "every step used: gone")
                #expect(try await APNSTestServer.push(client, server, issuedAt: clock.nowSeconds) == 200)
                let recorded = try await server.deliveries(matching: DeliveryFilter(service: .apns))
                #expect(recorded.map(\.fault) == ["retry", "retry", nil, "retry", nil], "the accepting step fires no fault")
                #expect(recorded.map(\.reason) == ["ServiceUnavailable", "TooManyRequests", nil, "InternalServerError", nil])
            }
            // What a sequence may not be.
            for (body, says) in [
                (#"{"sequence":[]}"#, "1 to 100 steps"),
                (#"{"sequence":[{"accept":true}],"count":2}"#, "does not go with a sequence"),
                (#"{"sequence":[{"accept":true}],"probability":0.5}"#, "does not go with a sequence"),
                (#"{"sequence":[{"accept":true}],"goAway":"x"}"#, "takes the place of the action"),
                (#"{"sequence":[{"accept":true,"resetStream":true}]}"#, "exactly one of"),
                (#"{"sequence":[{}]}"#, "exactly one of"),
                (#"{"sequence":[{"accept":false}]}"#, "can only be true"),
                (#"{"sequence":[{"reject":{"reason":"Nope"}}]}"#, "status is required"),
            ] {
                let refused = await server.inspect("PUT", "/api/v1/faults", body: body)
                #expect(refused.status == 400 && refused.errorMessage?.contains(says) == true, "\(body): \(refused.text)")
            }
            #expect(server.faults.rules.isEmpty)
        }
        // The configuration file takes the same sequence.
        var file = PushMockConfiguration()
        try file.load(
            contents: Array(#"{"faults":[{"id":"s","sequence":[{"goAway":"Shutdown"},{"delayMilliseconds":5},{"accept":true}]}]}"#.utf8),
            path: "s.json")
        #expect(file.faults.first?.sequence == [.goAway(reason: "Shutdown"), .delay(milliseconds: 5), nil])
    }

    @Test("faults: a drawn delay is shown as given, delays the answer it fires for, and is refused when malformed")
    func drawnDelay() async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            try await withHTTPClient { client in
                let put = await server.inspect(
                    "PUT", "/api/v1/faults",
                    body: #"""
                        {"id":"slow","match":{"service":"apns"},"delay":{"distribution":"uniform","minMilliseconds":250,"maxMilliseconds":250},"count":1}
                        """#)
                #expect(put.status == 200, "\(put.text)")
                let rule = try put.decode(FaultResource.self)
                #expect(rule.delay?.distribution == "uniform", "\(put.text)")
                #expect(rule.delay?.minMilliseconds == 250 && rule.delay?.maxMilliseconds == 250, "\(put.text)")
                let started = ContinuousClock.now
                #expect(try await APNSTestServer.push(client, server, issuedAt: clock.nowSeconds) == 200)
                let elapsed = ContinuousClock.now - started
                #expect(elapsed >= .milliseconds(240), "answered after the drawn delay, took \(elapsed)")
                let recorded = try await server.deliveries(matching: DeliveryFilter(service: .apns))
                #expect(recorded.map(\.fault) == ["slow"])
            }
            for (body, says) in [
                (#"{"delay":{"distribution":"uniform","minMilliseconds":20,"maxMilliseconds":10}}"#, "must not be below minMilliseconds"),
                (#"{"delay":{"distribution":"pareto"}}"#, "must be uniform"),
                (#"{"delay":{"distribution":"logNormal","medianMilliseconds":80}}"#, "takes medianMilliseconds"),
                (#"{"delay":{"distribution":"normal","meanMilliseconds":80,"standardDeviationMilliseconds":5,"sigma":1}}"#, "sigma"),
                (#"{"delay":{"distribution":"uniform","minMilliseconds":1,"maxMilliseconds":2},"delayMilliseconds":5}"#, "exactly one action"),
            ] {
                let refused = await server.inspect("PUT", "/api/v1/faults", body: body)
                #expect(refused.status == 400 && refused.errorMessage?.contains(says) == true, "\(body): \(refused.text)")
            }
        }
        // The configuration file and a sequence's steps take the same delay.
        var file = PushMockConfiguration()
        try file.load(
            contents: Array(
                #"{"faults":[{"id":"d","sequence":[{"delay":{"distribution":"logNormal","medianMilliseconds":80,"sigma":0.5}},{"accept":true}]}]}"#
                    .utf8),
            path: "d.json")
        #expect(file.faults.first?.sequence == [.delayDrawn(.logNormal(median: 80, sigma: 0.5)), nil])
    }

    @Test("reset releases open connections' token bindings: another key of the team works on the same connection")
    func resetReleasesBindings() async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            try await withHTTPClient { client in
                func send(keyID: String, key: P256.Signing.PrivateKey) async throws -> Int {
                    let (response, _) = try await client.send(
                        "https://localhost:\(server.pushPort)/3/device/\(S.deviceToken)", method: .POST,
                        headers: S.alertHeaders(token: S.token(keyID: keyID, key: key, issuedAt: clock.nowSeconds)), body: S.alertBody
                    )
                    return Int(response.status.code)
                }
                #expect(try await send(keyID: DevCertificates.sampleAPNSKeyID, key: S.sampleKey) == 200)
                #expect(try await send(keyID: "SECONDKEY1", key: S.secondKey) == 403, "bound to the first key")
                #expect(try await server.deliveries().last?.reason == "UnrelatedKeyIdInToken")
                let connection = try await server.deliveries().last?.connectionID
                #expect(await server.inspect("POST", "/api/v1/reset").status == 200)
                #expect(try await send(keyID: "SECONDKEY1", key: S.secondKey) == 200, "the binding started over")
                #expect(try await server.deliveries().last?.connectionID == connection, "on the same HTTP/2 connection")
            }
        }
    }
}

@Suite("Metrics count what never became a delivery")
struct MetricsTests {
    @Test("/metrics counts requests by outcome and transport refusals such as protocol errors")
    func metrics() async throws {
        let clock = PushMockClock.manual(startingAt: APNSTestServer.start)
        var configuration = APNSTestServer.configuration(clock: clock)
        configuration.cleartextPort = 0
        try await withPushMockServer(configuration) { server in
            try await withHTTPClient { client in
                #expect(try await APNSTestServer.push(client, server, issuedAt: clock.nowSeconds) == 200)
                #expect(try await APNSTestServer.push(client, server, token: "zz", issuedAt: clock.nowSeconds) == 400)
                server.injectFault("busy", match: .init(service: .apns), reject: 429, reason: "TooManyRequests", count: 1)
                #expect(try await APNSTestServer.push(client, server, issuedAt: clock.nowSeconds) == 429)
                let raw = try await RawClient.connect(port: server.cleartextPort!)
                try await raw.send(RawFrame.preface + RawFrame.emptySettings + RawFrame.frame(type: 0x0, flags: 0x1, stream: 0, payload: [1]))
                _ = try await raw.waitForClose()
                let (response, body) = try await client.send("http://127.0.0.1:\(server.inspectionPort!)/metrics")
                #expect(response.status == .ok)
                let text = String(decoding: body, as: UTF8.self)
                #expect(text.contains(#"pushmock_requests_total{service="apns",outcome="accepted",reason="none"} 1"#), "\(text)")
                #expect(text.contains(#"pushmock_requests_total{service="apns",outcome="rejected",reason="BadDeviceToken"} 1"#))
                #expect(text.contains(#"pushmock_request_duration_seconds_count{service="apns"} 3"#), "one latency sample per push")
                #expect(text.contains(#"pushmock_faults_fired_total{fault="busy",service="apns"} 1"#))
                #expect(text.contains(#"pushmock_requests_total{service="apns",outcome="rejected",reason="TooManyRequests"} 1"#))
                #expect(text.contains(#"pushmock_connections_opened_total"#))
                let protocolErrors = text.split(separator: "\n").first {
                    $0.hasPrefix(#"pushmock_transport_events_total{event="http2_protocol_error"}"#)
                }
                #expect(protocolErrors.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0 >= 1, "\(text)")
                #expect(text.contains("pushmock_store_deliveries 3"))
            }
        }
    }
}
