import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2
import PushMockCore
import PushMockInspection
import PushMockServer
import PushMockTestSupport
import PushMockTesting
import Testing

@Suite("APNs over TLS and HTTP/2, end to end")
struct APNSEndToEndTests {
    typealias S = APNSTestServer
    let path = "/3/device/\(APNSTestServer.deviceToken)"

    @Test("a valid push gets 200 as one HEADERS frame with apns-id and apns-unique-id, and is recorded")
    func accepted() async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            let client = try await H2FrameClient.connect(port: server.pushPort, tls: true)
            defer { Task { await client.close() } }
            let apnsID = "123e4567-e89b-12d3-a456-426614174000"
            client.send(
                streamID: 1, path: path, headers: S.alertHeaders(token: S.token(issuedAt: clock.nowSeconds), extra: [("apns-id", apnsID)]),
                body: S.alertBody)
            let frames = try await client.completedStream(1)
            #expect(frames.count == 1, "header-only success")
            #expect(try await client.status(of: 1) == "200")
            let headers = client.responseHeaders(of: 1)
            #expect(headers["apns-id"] == apnsID, "apns-id echoed exactly")
            #expect(headers["apns-unique-id"].flatMap(UUID.init(uuidString:)) != nil, "sandbox answers carry apns-unique-id")

            let deliveries = try await server.deliveryList("service=apns&outcome=accepted").deliveries
            #expect(deliveries.count == 1)
            let delivery = try #require(deliveries.first)
            #expect(delivery.apnsId == apnsID)
            #expect(delivery.deviceToken == APNSTestServer.deviceToken)
            #expect(delivery.topic == "com.example.app")
            #expect(delivery.pushType == "alert")
            #expect(delivery.identity == "\(DevCertificates.sampleAPNSTeamID)/\(DevCertificates.sampleAPNSKeyID)")
            #expect(delivery.environment == "sandbox")
            #expect(delivery.protocol == "HTTP/2")
            guard case .object = delivery.payload?["aps"] else {
                Issue.record("the payload's aps is an object: \(String(describing: delivery.payload))")
                return
            }
            let single = try await server.inspected("/api/v1/deliveries/\(delivery.id)", as: DeliveryResource.self)
            #expect(single.apnsId == apnsID)
        }
    }

    @Test("a connection's first answer indexes its id headers (their names enter the HPACK table); later answers send the ids never indexed")
    func idHeaderIndexing() async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            let client = try await H2FrameClient.connect(port: server.pushPort, tls: true)
            defer { Task { await client.close() } }
            var ids: Set<String> = []
            for streamID in [1, 3, 5] {
                client.send(streamID: streamID, path: path, headers: S.alertHeaders(token: S.token(issuedAt: clock.nowSeconds)), body: S.alertBody)
                #expect(try await client.status(of: streamID) == "200")
                let fields = client.responseFields(of: streamID)
                let expected: HPACKIndexing = streamID == 1 ? .indexable : .neverIndexed
                for name in ["apns-id", "apns-unique-id"] {
                    let field = try #require(fields.first { $0.name == name }, "stream \(streamID) answers \(name)")
                    #expect(field.indexable == expected, "stream \(streamID): \(name) sent \(field.indexable)")
                    #expect(UUID(uuidString: field.value) != nil, "stream \(streamID): \(name) is a UUID: \(field.value)")
                    ids.insert(field.value)
                }
            }
            #expect(ids.count == 6, "every id is new: \(ids)")
        }
    }

    @Test("authentication failures answer 403 with the reason, apns-id and JSON, and keep the connection")
    func authenticationFailures() async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            let now = clock.nowSeconds
            let cases: [(token: String?, reason: String)] = [
                (nil, "MissingProviderToken"),
                ("not-a-jwt", "InvalidProviderToken"),
                (S.token(issuedAt: now - 3601), "ExpiredProviderToken"),
                (S.token(keyID: "PRODKEY001", key: S.productionKey, issuedAt: now), "BadEnvironmentKeyInToken"),
                (S.token(keyID: "NOSUCHKEY1", issuedAt: now), "InvalidProviderToken"),
            ]
            let client = try await H2FrameClient.connect(port: server.pushPort, tls: true)
            defer { Task { await client.close() } }
            for (index, entry) in cases.enumerated() {
                let stream = 2 * index + 1
                client.send(streamID: stream, path: path, headers: S.alertHeaders(token: entry.token), body: S.alertBody)
                _ = try await client.completedStream(stream)
                #expect(try await client.status(of: stream) == "403")
                #expect(try await client.json(of: stream)["reason"] as? String == entry.reason)
                let headers = client.responseHeaders(of: stream)
                #expect(headers["content-type"] == "application/json")
                #expect(headers["apns-id"] != nil)
            }
            // Still the same connection: a valid push now succeeds on it.
            client.send(streamID: 11, path: path, headers: S.alertHeaders(token: S.token(issuedAt: now)), body: S.alertBody)
            #expect(try await client.status(of: 11) == "200")
            #expect(try await server.deliveryList("outcome=rejected&status=403").total == cases.count)
            let unknownKey = try await server.deliveryList("reason=InvalidProviderToken&limit=1")
            let explanation = unknownKey.deliveries.first?.explanation ?? ""
            #expect(explanation.contains("--apns-key NOSUCHKEY1"), "the delivery says what to register: \(explanation)")
        }
    }

    @Test("a token connection has one stream until its first valid token, then 1000")
    func oneStreamUntilAuthenticated() async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            let client = try await H2FrameClient.connect(port: server.pushPort, tls: true)
            defer { Task { await client.close() } }
            _ = try await client.waitFor("initial SETTINGS with MAX_CONCURRENT_STREAMS 1") { $0.maxConcurrentStreamsSetting == 1 }
            client.send(streamID: 1, path: path, headers: S.alertHeaders(token: "bad.token.here"), body: S.alertBody)
            #expect(try await client.status(of: 1) == "403")
            #expect(!client.frames.contains { $0.maxConcurrentStreamsSetting == 1000 }, "an invalid token does not raise the limit")
            client.send(streamID: 3, path: path, headers: S.alertHeaders(token: S.token(issuedAt: clock.nowSeconds)), body: S.alertBody)
            #expect(try await client.status(of: 3) == "200")
            _ = try await client.waitFor("SETTINGS with MAX_CONCURRENT_STREAMS 1000") { $0.maxConcurrentStreamsSetting == 1000 }
        }
    }

    @Test("a new token within 20 minutes on one connection is 429 TooManyProviderTokenUpdates; after 20 minutes it is fine")
    func tokenChurn() async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            let client = try await H2FrameClient.connect(port: server.pushPort, tls: true)
            defer { Task { await client.close() } }
            let first = S.token(issuedAt: clock.nowSeconds)
            client.send(streamID: 1, path: path, headers: S.alertHeaders(token: first), body: S.alertBody)
            #expect(try await client.status(of: 1) == "200")
            clock.advance(byMilliseconds: 10 * 60_000)
            client.send(streamID: 3, path: path, headers: S.alertHeaders(token: S.token(issuedAt: clock.nowSeconds)), body: S.alertBody)
            #expect(try await client.status(of: 3) == "429")
            #expect(try await client.json(of: 3)["reason"] as? String == "TooManyProviderTokenUpdates")
            client.send(streamID: 5, path: path, headers: S.alertHeaders(token: first), body: S.alertBody)
            #expect(try await client.status(of: 5) == "200", "the current token keeps working")
            clock.advance(byMilliseconds: 10 * 60_000 + 1000)
            client.send(streamID: 7, path: path, headers: S.alertHeaders(token: S.token(issuedAt: clock.nowSeconds)), body: S.alertBody)
            #expect(try await client.status(of: 7) == "200")
            // An hour after the first token was issued, it has expired.
            clock.advance(byMilliseconds: 40 * 60_000)
            client.send(streamID: 9, path: path, headers: S.alertHeaders(token: first), body: S.alertBody)
            _ = try await client.completedStream(9)
            #expect(try await client.json(of: 9)["reason"] as? String == "ExpiredProviderToken")
        }
    }

    @Test("the first push binds the connection to its key: another key is UnrelatedKeyIdInToken there, fine on a new connection")
    func connectionBinding() async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            let now = clock.nowSeconds
            let second = S.token(keyID: "SECONDKEY1", key: S.secondKey, issuedAt: now)
            let client = try await H2FrameClient.connect(port: server.pushPort, tls: true)
            defer { Task { await client.close() } }
            client.send(streamID: 1, path: path, headers: S.alertHeaders(token: S.token(issuedAt: now)), body: S.alertBody)
            #expect(try await client.status(of: 1) == "200")
            client.send(streamID: 3, path: path, headers: S.alertHeaders(token: second), body: S.alertBody)
            _ = try await client.completedStream(3)
            #expect(try await client.json(of: 3)["reason"] as? String == "UnrelatedKeyIdInToken")
            let fresh = try await H2FrameClient.connect(port: server.pushPort, tls: true)
            defer { Task { await fresh.close() } }
            fresh.send(streamID: 1, path: path, headers: S.alertHeaders(token: second), body: S.alertBody)
            #expect(try await fresh.status(of: 1) == "200")
        }
    }

    @Test("device registry states: Unregistered with its timestamp, ExpiredToken, DeviceTokenNotForTopic, BadDeviceToken")
    func registryStates() async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            let tokens = (1...4).map { String(repeating: String(format: "%02x", $0), count: 32) }
            server.devices.set(DeviceRecord(state: .unregistered(sinceMilliseconds: 1_454_948_015_990)), for: tokens[0])
            server.devices.set(DeviceRecord(state: .expired), for: tokens[1])
            server.devices.set(DeviceRecord(bundleID: "com.example.other"), for: tokens[2])
            server.devices.set(DeviceRecord(environment: .production), for: tokens[3])
            let client = try await H2FrameClient.connect(port: server.pushPort, tls: true)
            defer { Task { await client.close() } }
            let token = S.token(issuedAt: clock.nowSeconds)
            for (index, device) in tokens.enumerated() {
                client.send(streamID: 2 * index + 1, path: "/3/device/\(device)", headers: S.alertHeaders(token: token), body: S.alertBody)
                _ = try await client.completedStream(2 * index + 1)
            }
            #expect(try await client.status(of: 1) == "410")
            #expect(try await client.json(of: 1)["reason"] as? String == "Unregistered")
            #expect((try await client.json(of: 1)["timestamp"] as? NSNumber)?.int64Value == 1_454_948_015_990)
            #expect(try await client.status(of: 3) == "410")
            #expect(try await client.json(of: 3)["reason"] as? String == "ExpiredToken")
            #expect(try await client.json(of: 3)["timestamp"] == nil)
            #expect(try await client.json(of: 5)["reason"] as? String == "DeviceTokenNotForTopic")
            #expect(try await client.json(of: 7)["reason"] as? String == "BadDeviceToken")
        }
    }

    @Test("a body over the transport cap is 413 PayloadTooLarge after authentication")
    func payloadOverTransportCap() async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        var configuration = S.configuration(clock: clock)
        configuration.maxRequestBodySize = 8192
        try await withPushMockServer(configuration) { server in
            let client = try await H2FrameClient.connect(port: server.pushPort, tls: true)
            defer { Task { await client.close() } }
            let big = Array(#"{"aps":{"alert":""#.utf8) + [UInt8](repeating: 0x61, count: 20_000) + Array(#""}}"#.utf8)
            client.send(streamID: 1, path: path, headers: S.alertHeaders(token: S.token(issuedAt: clock.nowSeconds)), body: big)
            _ = try await client.completedStream(1)
            #expect(try await client.status(of: 1) == "413")
            #expect(try await client.json(of: 1)["reason"] as? String == "PayloadTooLarge")
            client.send(streamID: 3, path: path, headers: S.alertHeaders(token: S.token(issuedAt: clock.nowSeconds)), body: S.alertBody)
            #expect(try await client.status(of: 3) == "200")
        }
    }

    @Test("certificate authentication: accepted, wrong environment, topic not in the certificate, untrusted issuer")
    func certificateAuthentication() async throws {
        try await withPushMockServer(S.configuration(clock: .system)) { server in
            let url = "https://localhost:\(server.pushPort)\(path)"
            let sample = try S.material.issueAPNSClientCertificate()
            try await S.withCertificateClient(certificatePEM: sample.certificatePEM, keyPEM: sample.privateKeyPEM) { client in
                let (ok, _) = try await client.send(
                    url, method: .POST, headers: [("apns-topic", "com.example.app.voip"), ("apns-push-type", "voip")], body: S.alertBody)
                #expect(ok.status == .ok)
                let (other, body) = try await client.send(url, method: .POST, headers: [("apns-topic", "com.example.other")], body: S.alertBody)
                #expect(other.status == .badRequest)
                #expect(String(decoding: body, as: UTF8.self) == #"{"reason":"TopicDisallowed"}"#)
            }
            let production = try S.material.issueAPNSClientCertificate(environments: [.production])
            try await S.withCertificateClient(certificatePEM: production.certificatePEM, keyPEM: production.privateKeyPEM) { client in
                let (response, body) = try await client.send(url, method: .POST, headers: [("apns-topic", "com.example.app")], body: S.alertBody)
                #expect(response.status == .forbidden)
                #expect(String(decoding: body, as: UTF8.self) == #"{"reason":"BadCertificateEnvironment"}"#)
            }
            let stranger = try DevCertificates.generate().issueAPNSClientCertificate()
            try await S.withCertificateClient(certificatePEM: stranger.certificatePEM, keyPEM: stranger.privateKeyPEM) { client in
                let (response, body) = try await client.send(url, method: .POST, headers: [("apns-topic", "com.example.app")], body: S.alertBody)
                #expect(response.status == .forbidden)
                #expect(String(decoding: body, as: UTF8.self) == #"{"reason":"BadCertificate"}"#)
            }
            let identity = try await server.deliveryList("outcome=accepted").deliveries.first?.identity ?? ""
            #expect(identity.contains("com.example.app"), "the certificate subject is recorded: \(identity)")
        }
    }

    @Test("the environment follows the host: api.push.apple.com is production (no apns-unique-id)")
    func environmentFromHost() async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            let client = try await H2FrameClient.connect(port: server.pushPort, tls: true, serverName: "api.push.apple.com")
            defer { Task { await client.close() } }
            client.send(
                streamID: 1, path: path,
                headers: S.alertHeaders(token: S.token(keyID: "PRODKEY001", key: S.productionKey, issuedAt: clock.nowSeconds)), body: S.alertBody)
            #expect(try await client.status(of: 1) == "200")
            #expect(client.responseHeaders(of: 1)["apns-unique-id"] == nil)
            #expect(try await server.deliveryList("environment=production").total == 1)
        }
    }

    @Test("the inspection API filters, deletes, and refuses unknown filters")
    func inspectionAPI() async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            try await withHTTPClient { client in
                let url = "https://localhost:\(server.pushPort)\(path)"
                let token = S.token(issuedAt: clock.nowSeconds)
                for topic in ["com.example.app", "com.example.app.voip"] {
                    let type = topic.hasSuffix(".voip") ? "voip" : "alert"
                    _ = try await client.send(
                        url, method: .POST, headers: [("apns-topic", topic), ("apns-push-type", type), ("authorization", "bearer \(token)")],
                        body: S.alertBody)
                }
            }
            let all = try await server.deliveryList()
            #expect(all.total == 2)
            #expect(all.deliveries.first?.pushType == "voip", "newest first")
            #expect(try await server.deliveryList("pushType=voip&token=\(APNSTestServer.deviceToken.uppercased())").total == 1)
            let oldestID = try #require(all.deliveries.last?.id)
            #expect(try await server.deliveryList("after=\(oldestID)").total == 1)
            let bad = await server.inspect("GET", "/api/v1/deliveries?colour=blue")
            #expect(bad.status == 400)
            #expect(bad.errorMessage?.contains("unknown filter colour") == true)
            #expect(await server.inspect("GET", "/api/v1/deliveries?outcome=maybe").status == 400)
            #expect(await server.inspect("GET", "/api/v1/deliveries/999999").status == 404)
            let deleted = await server.inspect("DELETE", "/api/v1/deliveries?pushType=alert")
            #expect(deleted.status == 200)
            #expect(try deleted.decode(RemovedCount.self).removed == 1)
            #expect(try await server.deliveryList().total == 1)
            #expect(await server.inspect("GET", "/livez").status == 200)
            #expect(await server.inspect("GET", "/readyz").status == 200)
        }
    }

    @Test("an idle connection gets GOAWAY with {\"reason\":\"IdleTimeout\"}")
    func idleTimeout() async throws {
        var configuration = S.configuration()
        configuration.idleTimeoutSeconds = 1
        try await withPushMockServer(configuration) { server in
            let client = try await H2FrameClient.connect(port: server.pushPort, tls: true)
            let frame = try await client.waitFor("GOAWAY") { if case .goAway = $0.payload { true } else { false } }
            guard case .goAway(_, let code, let data) = frame.payload else { return }
            #expect(code == .noError)
            #expect(data.map { String(buffer: $0) } == #"{"reason":"IdleTimeout"}"#)
        }
    }
}

@Suite("Live Activity payload rules on the wire, in both profiles")
struct LiveActivityProfileTests {
    typealias S = APNSTestServer
    static let path = "/3/device/\(String(repeating: "cd", count: 80))"
    static let headers: [(String, String)] = [
        ("apns-topic", "com.example.app.push-type.liveactivity"), ("apns-push-type", "liveactivity"), ("apns-priority", "10"),
    ]

    static func body(timestamp: Int64) -> [UInt8] {
        Array(#"{"aps":{"event":"update","timestamp":\#(timestamp),"content-state":{"score":"1-0"}}}"#.utf8)
    }

    @Test(
        "strict: a millisecond timestamp is 400 with the rule's reason and description; apple: 200, recorded as dropped",
        arguments: [LiveActivityProfile.strict, .apple])
    func profiles(_ profile: LiveActivityProfile) async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        var configuration = S.configuration(clock: clock)
        configuration.apns.options.liveActivity.profile = profile
        try await withPushMockServer(configuration) { server in
            let client = try await H2FrameClient.connect(port: server.pushPort, tls: true)
            defer { Task { await client.close() } }
            let token = S.token(issuedAt: clock.nowSeconds)
            client.send(
                streamID: 1, path: Self.path, headers: Self.headers + [("authorization", "bearer \(token)")],
                body: Self.body(timestamp: clock.nowSeconds * 1000))
            _ = try await client.completedStream(1)
            switch profile {
            case .strict:
                #expect(try await client.status(of: 1) == "400")
                #expect(try await client.json(of: 1)["reason"] as? String == "LiveActivityTimestampInMilliseconds")
                #expect((try await client.json(of: 1)["description"] as? String)?.contains("seconds") == true)
            case .apple:
                #expect(try await client.status(of: 1) == "200")
            }
            client.send(
                streamID: 3, path: Self.path, headers: Self.headers + [("authorization", "bearer \(token)")],
                body: Self.body(timestamp: clock.nowSeconds))
            #expect(try await client.status(of: 3) == "200")
            let outcome = profile == .strict ? "rejected" : "dropped"
            let list = try await server.deliveryList("outcome=\(outcome)&reason=LiveActivityTimestampInMilliseconds")
            #expect(list.total == 1)
            let diagnostics = list.deliveries.first?.diagnostics ?? []
            #expect(diagnostics.contains("live activity profile: \(profile.rawValue)"))
            #expect(try await server.deliveryList("outcome=accepted&pushType=liveactivity").total == 1)
        }
    }
}
