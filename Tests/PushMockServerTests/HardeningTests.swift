import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import PushMockCore
import PushMockInspection
import PushMockServer
import PushMockTestSupport
import PushMockTesting
import Testing

/// Regression tests for the attack pass of issue 10: each reproduces a defect that took PushMock
/// down or starved its clients, then checks that the server still answers.
@Suite("Hardening: hostile input never crashes or starves PushMock")
struct HardeningTests {
    typealias S = APNSTestServer

    static func alive(_ server: PushMockServer, _ client: HTTPClient) async throws {
        let (push, _) = try await client.send("https://localhost:\(server.pushPort)/livez")
        #expect(push.status == .ok, "the push port stopped answering")
        let (inspection, _) = try await client.send("http://127.0.0.1:\(server.inspectionPort!)/api/v1/deliveries?limit=1")
        #expect(inspection.status == .ok, "the inspection port stopped answering")
    }

    static func unsigned(_ claims: String) -> String {
        Base64URL.encode(Array(#"{"alg":"RS256","typ":"JWT"}"#.utf8)) + "." + Base64URL.encode(Array(claims.utf8)) + ".c2ln"
    }

    @Test("an OAuth assertion with iat 1e300 and any signature is refused at /token and as an FCM bearer (regression: exit 132)")
    func oauthHostileClaims() async throws {
        try await withPushMockServer(FCMTestServer.configuration()) { server in
            try await withHTTPClient { client in
                for claims in [
                    #"{"iss":"a","iat":1e300,"exp":1}"#, #"{"iss":"\#(FCMTestServer.account["client_email"]!)","iat":-1e400,"exp":1e400}"#,
                ] {
                    let jwt = Self.unsigned(claims)
                    let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(jwt)"
                    let (token, body) = try await client.send(
                        "https://localhost:\(server.pushPort)/token", method: .POST,
                        headers: [("content-type", "application/x-www-form-urlencoded")], body: Array(form.utf8))
                    #expect(token.status == .badRequest)
                    #expect(String(decoding: body, as: UTF8.self).contains("invalid_grant"))
                    let (status, _, _) = try await FCMTestServer.send(
                        client, port: server.pushPort, bearer: jwt, body: #"{"message":{"topic":"news"}}"#)
                    #expect(status == 401)
                }
                try await Self.alive(server, client)
            }
        }
    }

    @Test(
        "wait?timeout=NaN, inf, 1e20 and 1e400 get a 400 naming timeout (regression: Int64(Double) trapped)",
        arguments: ["NaN", "inf", "1e20", "1e400", "-inf", "1e20ms"])
    func waitTimeouts(_ timeout: String) async throws {
        try await withPushMockServer(S.configuration()) { server in
            try await withHTTPClient { client in
                let (response, body) = try await client.send("http://127.0.0.1:\(server.inspectionPort!)/api/v1/deliveries/wait?timeout=\(timeout)")
                #expect(response.status == .badRequest)
                #expect(String(decoding: body, as: UTF8.self).contains("timeout must be"))
                try await Self.alive(server, client)
            }
        }
    }

    @Test("a Live Activity update with relevance-score 1e400 leaves every API encodable; /metrics ignores query parameters")
    func nonFiniteNumbers() async throws {
        var configuration = S.configuration(clock: .system)
        configuration.apns.options.liveActivity.profile = .apple
        try await withPushMockServer(configuration) { server in
            try await withHTTPClient { client in
                let now = Int(Date().timeIntervalSince1970)
                let body = #"{"aps":{"event":"update","timestamp":\#(now),"relevance-score":1e400,"content-state":{"n":1e400}}}"#
                let token = S.token(issuedAt: Int64(now))
                let (push, _) = try await client.send(
                    "https://localhost:\(server.pushPort)/3/device/\(String(repeating: "cd", count: 40))", method: .POST,
                    headers: S.alertHeaders(token: token, topic: "com.example.app.push-type.liveactivity").filter { $0.0 != "apns-push-type" } + [
                        ("apns-push-type", "liveactivity")
                    ],
                    body: Array(body.utf8)
                )
                #expect(push.status == .ok)
                for target in ["/api/v1/activities", "/api/v1/deliveries", "/metrics?x=1&format=anything"] {
                    let (response, bytes) = try await client.send("http://127.0.0.1:\(server.inspectionPort!)\(target)")
                    #expect(response.status == .ok, "\(target)")
                    if target.hasPrefix("/api") {
                        #expect((try? JSONSerialization.jsonObject(with: Data(bytes))) != nil, "\(target) is not JSON")
                        #expect(!String(decoding: bytes, as: UTF8.self).contains("could not encode"))
                    }
                }
            }
        }
    }

    @Test("a header list over 8000 bytes gets 431 on HTTP/2 and HTTP/1.1, even with a tiny body", arguments: [false, true])
    func headerListTooLarge(http1: Bool) async throws {
        try await withPushMockServer(S.configuration()) { server in
            try await withHTTPClient(http1Only: http1) { client in
                let headers = S.alertHeaders(token: S.token(issuedAt: S.start / 1000), extra: [("x-padding", String(repeating: "p", count: 9000))])
                let (response, _) = try await client.send(
                    "https://localhost:\(server.pushPort)/3/device/\(S.deviceToken)", method: .POST, headers: headers,
                    body: Array(#"{"aps":{}}"#.utf8))
                #expect(response.status.code == 431)
            }
            try await withHTTPClient { client in try await Self.alive(server, client) }
        }
    }

    @Test("a 9 KB header gets the same readable 431 from curl 100 times in a row (HTTP/2, with a body still to send)")
    func bigHeaderWithCurl() async throws {
        try await withPushMockServer(S.configuration()) { server in
            let big = String(repeating: "x", count: 9_000)
            var answers: [String: Int] = [:]
            let port = server.pushPort
            for _ in 0..<100 {
                let answer = try await offThePool {
                    let (status, printed) = try ChildProcess.run([
                        "/usr/bin/curl", "-sk", "--http2", "-o", "/dev/null", "-w", "%{http_code}", "-H", "x-big: \(big)", "-H",
                        "apns-topic: com.example.app", "-X", "POST", "-d", #"{"aps":{"alert":"hi"}}"#,
                        "https://localhost:\(port)/3/device/\(S.deviceToken)",
                    ])
                    return "\(printed) exit \(status)"
                }
                answers[answer, default: 0] += 1
            }
            // Before: "000 exit 92" (stream not closed cleanly) in about half of the tries.
            #expect(answers == ["431 exit 0": 100], "\(answers)")
        }
    }

    @Test("authorization: bearer with nothing after it is answered MissingProviderToken, not reset by the HTTP/2 layer")
    func blankBearer() async throws {
        try await withPushMockServer(S.configuration()) { server in
            let client = try await H2FrameClient.connect(port: server.pushPort, tls: true)
            client.send(
                streamID: 1, path: "/3/device/\(S.deviceToken)", headers: [("apns-topic", "com.example.app"), ("authorization", "bearer ")],
                body: S.alertBody)
            #expect(try await client.status(of: 1) == "403")
            _ = try await client.completedStream(1)
            #expect(try await client.json(of: 1)["reason"] as? String == "MissingProviderToken")
            await client.close()
        }
    }

    @Test("a token form past the body cap is answered 413, never read as the part that fit", arguments: [true, false])
    func tokenFormOverCap(http1Only: Bool) async throws {
        try await withPushMockServer(FCMTestServer.configuration()) { server in
            try await withHTTPClient(http1Only: http1Only) { client in
                // A valid grant first, then 70 KB more: the part under the cap would be a valid form.
                let form =
                    "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(FCMTestServer.assertion())&pad="
                    + String(repeating: "x", count: 70_000)
                let (response, body) = try await client.send(
                    "https://localhost:\(server.pushPort)/token", method: .POST,
                    headers: [("content-type", "application/x-www-form-urlencoded")], body: Array(form.utf8))
                #expect(response.status == .payloadTooLarge, "\(String(decoding: body, as: UTF8.self))")
                #expect(String(decoding: body, as: UTF8.self).contains("body cap"))
                let recorded = try await server.deliveryList("service=oauth").deliveries
                #expect(recorded.first?.status == 413, "\(recorded.map(\.status))")
                try await Self.alive(server, client)
            }
        }
    }

    @Test("a token whose scopes lack FCM's is issued, then refused at messages:send with ACCESS_TOKEN_SCOPE_INSUFFICIENT")
    func insufficientScope() async throws {
        try await withPushMockServer(FCMTestServer.configuration()) { server in
            try await withHTTPClient { client in
                let assertion = FCMTestServer.assertion(scope: "https://www.googleapis.com/auth/userinfo.email")
                let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"
                let (issued, body) = try await client.send(
                    "https://localhost:\(server.pushPort)/token", method: .POST,
                    headers: [("content-type", "application/x-www-form-urlencoded")], body: Array(form.utf8))
                #expect(issued.status == .ok)
                let bearer = try #require((try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["access_token"] as? String)
                let (status, json, _) = try await FCMTestServer.send(
                    client, port: server.pushPort, bearer: bearer, body: #"{"message":{"topic":"news"}}"#)
                #expect(status == 403)
                let error = json["error"] as? [String: Any]
                #expect(error?["status"] as? String == "PERMISSION_DENIED")
                #expect(error?["message"] as? String == "Request had insufficient authentication scopes.")
                let details = error?["details"] as? [[String: Any]]
                #expect(details?.contains { $0["reason"] as? String == "ACCESS_TOKEN_SCOPE_INSUFFICIENT" } == true)
            }
        }
    }

    /// The server's `/metrics` text.
    static func metrics(_ server: PushMockServer) async throws -> String {
        try await withHTTPClient { client in
            let (_, body) = try await client.send("http://127.0.0.1:\(server.inspectionPort!)/metrics")
            return String(decoding: body, as: UTF8.self)
        }
    }

    /// Whether the server comes to count `count` open connections (within the hang bound).
    static func waitForActive(_ server: PushMockServer, _ count: Int) async throws -> Bool {
        try await eventually { try await metrics(server).contains("pushmock_connections_active \(count)") }
    }

    @Test("connections over --max-connections are closed at once and counted; the inspection port keeps answering")
    func connectionCap() async throws {
        var configuration = S.configuration()
        configuration.maxConnections = 2
        // The sockets stay silent on purpose: no protocol deadline closes them while a busy machine runs the test.
        configuration.protocolDeadlineSeconds = nil
        try await withPushMockServer(configuration) { server in
            let first = try await RawClient.connect(port: server.pushPort)
            let second = try await RawClient.connect(port: server.pushPort)
            // The server accepts each socket on its own event loop: the third is opened only once
            // both others are registered, or it could be initialised first and keep the slot.
            try #require(try await Self.waitForActive(server, 2), "the first two connections were never registered")
            let third = try await RawClient.connect(port: server.pushPort)
            _ = try await third.waitForClose()
            #expect(first.channel.isActive && second.channel.isActive)
            try await withHTTPClient { client in
                let (metrics, body) = try await client.send("http://127.0.0.1:\(server.inspectionPort!)/metrics")
                #expect(metrics.status == .ok)
                let text = String(decoding: body, as: UTF8.self)
                #expect(text.contains(#"event="connection_over_cap"} 1"#), "\(text.split(separator: "\n").filter { $0.contains("transport") })")
                #expect(text.contains("pushmock_connections_active 2"), "idle sockets count as active connections")
            }
            try await first.channel.close()
            try await second.channel.close()
        }
    }

    @Test("connections over --max-connections-per-client from one address are closed at once and counted; a place given back is a place again")
    func clientCap() async throws {
        var configuration = S.configuration()
        configuration.maxConnections = 100
        configuration.maxConnectionsPerClient = 2
        configuration.protocolDeadlineSeconds = nil
        try await withPushMockServer(configuration) { server in
            let first = try await RawClient.connect(port: server.pushPort)
            let second = try await RawClient.connect(port: server.pushPort)
            try #require(try await Self.waitForActive(server, 2), "the first two connections were never registered")
            let third = try await RawClient.connect(port: server.pushPort)
            _ = try await third.waitForClose()
            #expect(first.channel.isActive && second.channel.isActive)
            let text = try await Self.metrics(server)
            #expect(text.contains(#"event="connection_over_client_cap"} 1"#), "\(text.split(separator: "\n").filter { $0.contains("transport") })")
            try await first.channel.close()
            // Once the server has seen the close, the address has a place again.
            let admitted = try await eventually {
                let next = try await RawClient.connect(port: server.pushPort)
                defer { Task { try? await next.channel.close() } }
                return try await Self.metrics(server).contains("pushmock_connections_active 2")
            }
            #expect(admitted, "a connection after a close was never admitted")
            try await second.channel.close()
        }
    }

    @Test(
        "a shutdown closes idle HTTP/1.1 and HTTP/2 connections at once; only work in flight gets the grace period (here an hour, past the test's time limit)",
        .timeLimit(.minutes(2)))
    func idleConnectionsCloseAtShutdown() async throws {
        var configuration = S.configuration()
        configuration.pushPort = 0
        configuration.inspectionPort = 0
        configuration.shutdownGracePeriodSeconds = 3600
        let server = try await PushMockServer.start(configuration: configuration)
        let jwt = S.token(issuedAt: S.start / 1000)
        try await withHTTPClient(http1Only: true) { http1 in
            try await withHTTPClient { http2 in
                // One answered request on each: the clients keep the connections open, idle.
                for client in [http1, http2] {
                    let (response, _) = try await client.send(
                        "https://localhost:\(server.pushPort)/3/device/\(S.deviceToken)", method: .POST, headers: S.alertHeaders(token: jwt),
                        body: S.alertBody)
                    #expect(response.status == .ok)
                }
                let (page, _) = try await http1.send("http://127.0.0.1:\(server.inspectionPort!)/api/v1/deliveries?limit=1")
                #expect(page.status == .ok)
                await server.shutdown()
            }
        }
    }

    @Test("the CONNECT proxy's connections count in the push port's cap: push and proxy together stay under it; the inspection port keeps answering")
    func proxyInBudget() async throws {
        var configuration = S.configuration()
        configuration.maxConnections = 4
        configuration.proxyPort = 0
        // The sockets stay silent on purpose: no protocol deadline closes them while a busy machine runs the test.
        configuration.protocolDeadlineSeconds = nil
        try await withPushMockServer(configuration) { server in
            let proxyPort = try #require(server.proxyPort)
            var open: [RawClient] = []
            for port in [server.pushPort, server.pushPort, proxyPort, proxyPort] {
                open.append(try await RawClient.connect(port: port))
            }
            try await withHTTPClient { client in
                let registered = try await eventually {
                    let (_, body) = try await client.send("http://127.0.0.1:\(server.inspectionPort!)/metrics")
                    return String(decoding: body, as: UTF8.self).contains("pushmock_connections_active 4")
                }
                try #require(registered, "the first four connections were never registered")
            }
            // Before: each listener had its own cap of 4, so the proxy could add 4 more descriptors.
            for port in [proxyPort, server.pushPort] {
                let over = try await RawClient.connect(port: port)
                _ = try await over.waitForClose()
            }
            #expect(open.allSatisfy { $0.channel.isActive })
            try await withHTTPClient { client in
                let (metrics, body) = try await client.send("http://127.0.0.1:\(server.inspectionPort!)/metrics")
                #expect(metrics.status == .ok)
                let text = String(decoding: body, as: UTF8.self)
                #expect(text.contains(#"event="connection_over_cap"} 2"#), "\(text.split(separator: "\n").filter { $0.contains("transport") })")
                let (live, _) = try await client.send("http://127.0.0.1:\(server.inspectionPort!)/livez")
                #expect(live.status == .ok)
            }
            for client in open { try await client.channel.close() }
            // A place given back is a place again, once the server has seen the closes: an admitted
            // connection is answered (403 for a host the proxy does not serve), one over the cap is
            // closed unanswered.
            let admitted = try await eventually {
                // (Each try's connection is closed before the next: they count in the cap.)
                let again = try await RawClient.connect(port: proxyPort)
                try? await again.send(Array("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n".utf8))
                _ = await eventually { again.bytes.count >= 12 || !again.channel.isActive }
                try? await again.channel.close()
                return String(decoding: again.bytes, as: UTF8.self).hasPrefix("HTTP/1.1 403")
            }
            #expect(admitted, "no proxy connection was admitted again after the others closed")
        }
    }

    @Test("a connection that never sends a ClientHello, or a request line, is closed at the protocol deadline")
    func protocolDeadline() async throws {
        var configuration = S.configuration()
        configuration.protocolDeadlineSeconds = 1
        configuration.cleartextPort = 0
        try await withPushMockServer(configuration) { server in
            let silentTLS = try await RawClient.connect(port: server.pushPort)
            let silentCleartext = try await RawClient.connect(port: server.cleartextPort!)
            // Half a request line: no protocol yet. (On a loaded machine the deadline may already have
            // closed the connection; the close below is what is checked.)
            try? await silentCleartext.send(Array("GET /li".utf8))
            _ = try await silentTLS.waitForClose()
            _ = try await silentCleartext.waitForClose()
        }
    }

    @Test("an endless chunked HTTP/1.1 body gets 413 at the cap and the connection closes")
    func endlessChunkedBody() async throws {
        var configuration = S.configuration()
        configuration.cleartextPort = 0
        try await withPushMockServer(configuration) { server in
            let raw = try await RawClient.connect(port: server.cleartextPort!)
            let token = S.token(issuedAt: S.start / 1000)
            try await raw.send(
                Array(
                    "POST /3/device/\(S.deviceToken) HTTP/1.1\r\nhost: localhost\r\napns-topic: com.example.app\r\nauthorization: bearer \(token)\r\ntransfer-encoding: chunked\r\n\r\n"
                        .utf8))
            let chunk = Array("4000\r\n".utf8) + [UInt8](repeating: 0x61, count: 0x4000) + Array("\r\n".utf8)
            for _ in 0..<8 where raw.channel.isActive {
                try? await raw.send(chunk)
            }
            let answer = String(decoding: try await raw.waitForClose(), as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer.prefix(200))")
            #expect(answer.lowercased().contains("connection: close"))
        }
    }

    @Test("a content-length larger than the body sent is closed at the idle timeout (HTTP/1.1)")
    func shortBody() async throws {
        var configuration = S.configuration()
        configuration.cleartextPort = 0
        configuration.idleTimeoutSeconds = 1
        try await withPushMockServer(configuration) { server in
            let raw = try await RawClient.connect(port: server.cleartextPort!)
            // (On a busy machine the idle second can pass before the request is written, and the
            // server has closed already: the close is what is checked.)
            try? await raw.send(Array("POST /3/device/\(S.deviceToken) HTTP/1.1\r\nhost: localhost\r\ncontent-length: 100\r\n\r\n{}".utf8))
            _ = try await raw.waitForClose()
        }
    }

    @Test("cross-site requests cannot change state; a foreign Host is refused; credentials are elided unless reveal=1")
    func browserGuards() async throws {
        try await withPushMockServer(S.configuration()) { server in
            try await withHTTPClient { client in
                let base = "http://127.0.0.1:\(server.inspectionPort!)"
                let (simple, _) = try await client.send(
                    base + "/api/v1/reset", method: .POST, headers: [("content-type", "text/plain"), ("origin", "http://evil.example")],
                    body: Array("{}".utf8))
                #expect(simple.status == .forbidden)
                let (plain, _) = try await client.send(
                    base + "/api/v1/reset", method: .POST, headers: [("content-type", "text/plain")], body: Array("{}".utf8))
                #expect(plain.status == .forbidden, "a text/plain POST without the client header is what a page can send")
                let (swiftPlain, _) = try await client.send(
                    base + "/api/v1/activity-types", method: .PUT, headers: [("content-type", "text/plain")], body: Array("struct A {}".utf8))
                #expect(swiftPlain.status == .forbidden, "Swift source sent as text/plain is what a page can send")
                let (swift, _) = try await client.send(
                    base + "/api/v1/activity-types", method: .PUT, headers: [("content-type", "text/x-swift")], body: Array("struct A {}".utf8))
                #expect(swift.status.code == 501, "text/x-swift needs a preflight, so it passes the guard (this server has no Swift reader)")
                let (swiftForeign, _) = try await client.send(
                    base + "/api/v1/activity-types", method: .PUT, headers: [("content-type", "text/x-swift"), ("origin", "http://evil.example")],
                    body: Array("struct A {}".utf8)
                )
                #expect(swiftForeign.status == .forbidden)
                let (json, _) = try await client.send(
                    base + "/api/v1/reset", method: .POST, headers: [("content-type", "application/json")], body: Array("{}".utf8))
                #expect(json.status == .ok)
                let (rebound, _) = try await client.send(base + "/api/v1/deliveries", headers: [("host", "attacker.example:2198")])
                #expect(rebound.status.code == 421)
                let (health, _) = try await client.send(base + "/livez", headers: [("host", "10.1.2.3:2198")])
                #expect(health.status == .ok)
                let (local, _) = try await client.send(base + "/api/v1/deliveries", headers: [("host", "localhost:2198")])
                #expect(local.status == .ok)

                let token = S.token(issuedAt: S.start / 1000)
                _ = try await client.send(
                    "https://localhost:\(server.pushPort)/3/device/\(S.deviceToken)", method: .POST, headers: S.alertHeaders(token: token),
                    body: S.alertBody)
                let (_, listed) = try await client.send(base + "/api/v1/deliveries?limit=1")
                let delivery = try #require(try JSONDecoder().decode(DeliveryList.self, from: Data(listed)).deliveries.first)
                let header = delivery.headers.first { $0.first == "authorization" }?.last ?? ""
                #expect(!header.contains(token.split(separator: ".")[2]), "the signature is shown")
                #expect(header.hasPrefix("bearer " + token.split(separator: ".")[0...1].joined(separator: ".") + "."))
                #expect(delivery.authorization?.claims["iss"] == .string(DevCertificates.sampleAPNSTeamID))
                let (_, revealed) = try await client.send(base + "/api/v1/deliveries?limit=1&reveal=1")
                #expect(String(decoding: revealed, as: UTF8.self).contains(String(token.split(separator: ".")[2])))
                let (badReveal, _) = try await client.send(base + "/api/v1/deliveries/\(delivery.id)?reveal=yes")
                #expect(badReveal.status == .badRequest)
                let (_, curl) = try await client.send(base + "/api/v1/deliveries/\(delivery.id)/curl")
                #expect(!String(decoding: curl, as: UTF8.self).contains(String(token.split(separator: ".")[2])))
            }
        }
    }

    @Test("one hub fans every delivery out to 50 streams, in order, once each; a stream resumed with Last-Event-ID catches up first")
    func fanOut() async throws {
        try await withPushMockServer(S.configuration()) { server in
            try await withHTTPClient { client in
                let token = S.token(issuedAt: S.start / 1000)
                func push() async throws {
                    let (response, _) = try await client.send(
                        "https://localhost:\(server.pushPort)/3/device/\(S.deviceToken)", method: .POST, headers: S.alertHeaders(token: token),
                        body: S.alertBody)
                    #expect(response.status == .ok)
                }
                for _ in 0..<3 { try await push() }
                var streams: [RawClient] = []
                for index in 0..<50 {
                    let raw = try await RawClient.connect(port: server.inspectionPort!)
                    let resume = index == 0 ? "last-event-id: 0\r\n" : ""
                    try await raw.send(Array("GET /api/v1/events HTTP/1.1\r\nhost: 127.0.0.1\r\n\(resume)\r\n".utf8))
                    streams.append(raw)
                }
                _ = await eventually { streams.allSatisfy { String(decoding: $0.bytes, as: UTF8.self).contains(": PushMock event stream") } }
                for _ in 0..<5 { try await push() }
                func ids(_ raw: RawClient) -> [Int] {
                    // (split on any newline: "\r\n" of the chunked framing is one Character)
                    String(decoding: raw.bytes, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { line in
                        line.hasPrefix("id: ") ? Int(line.dropFirst(4)) : nil
                    }
                }
                _ = await eventually { ids(streams[0]).count == 8 && streams.dropFirst().allSatisfy { ids($0).count == 5 } }
                #expect(ids(streams[0]) == Array(1...8), "the resumed stream: \(ids(streams[0]))")
                for (index, raw) in streams.enumerated().dropFirst() {
                    #expect(ids(raw) == Array(4...8), "stream \(index): \(ids(raw))")
                }
                for raw in streams { try? await raw.channel.close() }
            }
        }
    }

    @Test("event streams are capped: one over --max-event-subscribers gets 503, and a closed stream frees its slot")
    func subscriberCap() async throws {
        var configuration = S.configuration()
        configuration.maxEventSubscribers = 1
        try await withPushMockServer(configuration) { server in
            let request = Array("GET /api/v1/events HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n".utf8)
            let first = try await RawClient.connect(port: server.inspectionPort!)
            try await first.send(request)
            try await withHTTPClient { client in
                let opened = await eventually { String(decoding: first.bytes, as: UTF8.self).contains("200 OK") }
                #expect(opened)
                // Another route, one that no clock bounds (a wait answers 503 when the machine is so
                // busy that its 1 ms and 2 s of store patience pass before it runs), is not affected.
                let (second, secondBody) = try await client.send("http://127.0.0.1:\(server.inspectionPort!)/livez")
                #expect(second.status.code == 200, "other routes are not affected: \(String(decoding: secondBody, as: UTF8.self))")
                let (refused, body) = try await client.send("http://127.0.0.1:\(server.inspectionPort!)/api/v1/events")
                #expect(refused.status == .serviceUnavailable)
                #expect(String(decoding: body, as: UTF8.self).contains("--max-event-subscribers"))
                try await first.channel.close()
                // Until the server has seen the close, another stream is refused (503); then one opens.
                // (Each try's connection is closed before the next: they count in the port's cap.)
                let freed = try await eventually {
                    let third = try await RawClient.connect(port: server.inspectionPort!)
                    try? await third.send(request)
                    _ = await eventually { third.bytes.count >= 12 || !third.channel.isActive }
                    try? await third.channel.close()
                    return String(decoding: third.bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200")
                }
                #expect(freed)
            }
        }
    }
}
