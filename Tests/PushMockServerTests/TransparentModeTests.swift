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

@Suite("Unmodified clients: the real hosts by :authority/SNI, transparent mode and the CONNECT proxy")
struct TransparentModeTests {
    static func configuration(transparent: Bool = true, proxy: Bool = false) -> PushMockConfiguration {
        var configuration = FCMTestServer.configuration()
        configuration.pushPort = 0
        configuration.transparent = transparent
        configuration.proxyPort = proxy ? 0 : nil
        return configuration
    }

    @Test("each real host serves only its own paths; other names get 421 in transparent mode; loopback serves every path")
    func hostRouting() async throws {
        try await withPushMockServer(Self.configuration()) { server in
            let client = try await H2FrameClient.connect(port: server.pushPort, tls: true, serverName: "api.push.apple.com")
            defer { Task { await client.close() } }
            let token = APNSTestServer.token(issuedAt: Int64(Date().timeIntervalSince1970))
            client.send(
                streamID: 1, path: "/3/device/\(APNSTestServer.deviceToken)", authority: "api.push.apple.com",
                headers: APNSTestServer.alertHeaders(token: token), body: APNSTestServer.alertBody
            )
            #expect(try await client.status(of: 1) == "200")
            client.send(
                streamID: 3, path: "/v1/projects/\(FCMTestServer.project)/messages:send", authority: "api.push.apple.com", body: Array("{}".utf8))
            #expect(try await client.status(of: 3) == "404")
            #expect(try await client.json(of: 3)["reason"] as? String == "BadPath")
            client.send(streamID: 5, path: "/3/device/\(APNSTestServer.deviceToken)", authority: "fcm.googleapis.com", body: Array("{}".utf8))
            #expect(try await client.status(of: 5) == "404", "Google's front end has no /3/ path")
            _ = try await client.completedStream(5)  // (the body's DATA frame can follow the HEADERS)
            #expect(String(decoding: client.body(of: 5), as: UTF8.self).contains("was not found on this server"))
            client.send(
                streamID: 7, path: "/token", authority: "oauth2.googleapis.com", headers: [("content-type", "application/x-www-form-urlencoded")],
                body: Array("grant_type=x".utf8))
            #expect(try await client.status(of: 7) == "400", "oauth2.googleapis.com/token is the OAuth endpoint")
            #expect(try await client.json(of: 7)["error"] as? String != nil)
            client.send(streamID: 9, method: "GET", path: "/livez", authority: "example.org")
            #expect(try await client.status(of: 9) == "421")
            #expect(try await client.json(of: 9)["reason"] as? String == "MisdirectedRequest")
            client.send(streamID: 11, method: "GET", path: "/livez", authority: "localhost:443")
            #expect(try await client.status(of: 11) == "200")
            let apns = try await server.deliveryList("service=apns")
            #expect(apns.deliveries.first?.environment == "production", "api.push.apple.com is production")
        }
    }

    @Test("Web Push at web.push.apple.com and updates.push.services.mozilla.com: endpoints minted on the real hosts, VAPID's aud their origin")
    func webPushHosts() async throws {
        try await withPushMockServer(Self.configuration()) { server in
            let sender = WebPushTestSender()
            let now = Int64(Date().timeIntervalSince1970)
            for (service, host) in [("apple", "web.push.apple.com"), ("mozilla", "updates.push.services.mozilla.com")] {
                let subscription = try await WebPushTests.mint(server, service, key: sender.publicKey)
                let path = String(subscription.endpoint.dropFirst("https://\(host)".count))
                #expect(subscription.endpoint.hasPrefix("https://\(host)/") && path.hasSuffix(subscription.id), "\(subscription.endpoint)")
                let client = try await H2FrameClient.connect(port: server.pushPort, tls: true, serverName: host)
                defer { Task { await client.close() } }
                func push(_ stream: Int, path: String, authority: String, aud: String) throws {
                    let body = try WebPushTestSender.encrypt(Array("hello".utf8), p256dh: subscription.keys.p256dh, auth: subscription.keys.auth)
                    let authorization = try sender.authorization(aud: aud, exp: now + 3600, sub: "mailto:ops@example.com")
                    client.send(
                        streamID: stream, path: path, authority: authority,
                        headers: [("ttl", "60"), ("content-encoding", "aes128gcm"), ("authorization", authorization)], body: body)
                }
                try push(1, path: path, authority: host, aud: "https://\(host)")
                #expect(try await client.status(of: 1) == "201", "\(host)")
                try push(3, path: path, authority: "\(host):443", aud: "https://\(host)")
                #expect(try await client.status(of: 3) == "201", "an origin leaves out the default port")
                try push(5, path: path, authority: host, aud: "https://localhost:\(server.pushPort)")
                #expect(try await client.status(of: 5) == (service == "apple" ? "403" : "401"), "aud is the real host's origin")
                try push(7, path: "/3/device/\(APNSTestServer.deviceToken)", authority: host, aud: "https://\(host)")
                #expect(try await client.status(of: 7) == "404", "\(host) has no APNs path")
            }
            let webPush = try await server.deliveryList("service=webpush").deliveries
            #expect(webPush.filter { $0.outcome == .accepted }.count == 4)
            #expect(webPush.filter { $0.reason == "audience" }.count == 2)
        }
    }

    @Test(
        "APNs's one stream before a valid token is APNs's alone: a connection to a Google host by SNI gets every stream from the start",
        arguments: ["fcm.googleapis.com", "oauth2.googleapis.com", "iid.googleapis.com", "api.push.apple.com", "localhost"])
    func streamsBeforeAuthentication(serverName: String) async throws {
        try await withPushMockServer(Self.configuration()) { server in
            let client = try await H2FrameClient.connect(port: server.pushPort, tls: true, serverName: serverName)
            defer { Task { await client.close() } }
            let google = serverName.hasSuffix(".googleapis.com")
            let expected = google ? 1000 : 1
            _ = try await client.waitFor("initial SETTINGS with MAX_CONCURRENT_STREAMS \(expected)") { $0.maxConcurrentStreamsSetting == expected }
            #expect(!client.frames.contains { $0.maxConcurrentStreamsSetting == (google ? 1 : 1000) })
        }
    }

    @Test("outside transparent mode an unknown name is answered by path, as before")
    func notTransparent() async throws {
        try await withPushMockServer(Self.configuration(transparent: false)) { server in
            let client = try await H2FrameClient.connect(port: server.pushPort, tls: true)
            defer { Task { await client.close() } }
            client.send(streamID: 1, method: "GET", path: "/livez", authority: "pushmock.internal")
            #expect(try await client.status(of: 1) == "200")
        }
    }

    @Test("through HTTPS_PROXY-style CONNECT: OAuth at oauth2.googleapis.com, a send at fcm.googleapis.com and Instance ID at iid.googleapis.com")
    func proxy() async throws {
        try await withPushMockServer(Self.configuration(transparent: false, proxy: true)) { server in
            let proxyPort = try #require(server.proxyPort)
            var configuration = HTTPClient.Configuration()
            configuration.tlsConfiguration = try TestTLS.clientConfiguration(alpn: [])
            configuration.proxy = .server(host: "127.0.0.1", port: proxyPort)
            configuration.timeout = .init(connect: .seconds(60))
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            do {
                let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(FCMTestServer.assertion())"
                let (tokenResponse, tokenBody) = try await client.send(
                    "https://oauth2.googleapis.com/token", method: .POST, headers: [("content-type", "application/x-www-form-urlencoded")],
                    body: Array(form.utf8)
                )
                #expect(tokenResponse.status == .ok)
                let bearer = try #require((try JSONSerialization.jsonObject(with: Data(tokenBody)) as? [String: Any])?["access_token"] as? String)
                let (sendResponse, _) = try await client.send(
                    "https://fcm.googleapis.com/v1/projects/\(FCMTestServer.project)/messages:send", method: .POST,
                    headers: [("content-type", "application/json"), ("authorization", "Bearer \(bearer)")],
                    body: Array(#"{"message":{"token":"\#(FCMTestServer.token)","data":{"a":"b"}}}"#.utf8)
                )
                #expect(sendResponse.status == .ok)
                let (iidResponse, iidBody) = try await client.send(
                    "https://iid.googleapis.com/iid/v1:batchAdd", method: .POST,
                    headers: [("content-type", "application/json"), ("authorization", "Bearer \(bearer)"), ("access_token_auth", "true")],
                    body: Array(#"{"to":"/topics/news","registration_tokens":["\#(FCMTestServer.token)"]}"#.utf8)
                )
                #expect(iidResponse.status == .ok)
                #expect(String(decoding: iidBody, as: UTF8.self) == #"{"results":[{}]}"# + "\n")
                try await client.shutdown()
            } catch {
                try? await client.shutdown()
                throw error
            }
            #expect(try await server.deliveryList().total == 3)
        }
    }

    @Test("the proxy is never open: CONNECT to another host or port gets 403, another method 405, and nothing is forwarded")
    func proxyRefusals() async throws {
        try await withPushMockServer(Self.configuration(transparent: false, proxy: true)) { server in
            let proxyPort = try #require(server.proxyPort)
            for (request, status) in [
                ("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", "403"),
                ("CONNECT fcm.googleapis.com:8443 HTTP/1.1\r\n\r\n", "403"),
                ("CONNECT 127.0.0.1:\(server.pushPort) HTTP/1.1\r\n\r\n", "403"),
                ("GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n", "405"),
                ("hello\r\n\r\n", "400"),
            ] {
                let raw = try await RawClient.connect(port: proxyPort)
                try await raw.send(Array(request.utf8))
                let answer = String(decoding: try await raw.waitForClose(), as: UTF8.self)
                #expect(answer.hasPrefix("HTTP/1.1 \(status) "), "\(request.prefix(40)): \(answer.prefix(60))")
            }
            // A target with an escape sequence, quotes and a backslash: the answer is valid JSON and shows them escaped.
            let hostile = try await RawClient.connect(port: proxyPort)
            try await hostile.send(Array("CONNECT \u{1B}[2Jevil\"\\host\u{7F}:443 HTTP/1.1\r\n\r\n".utf8))
            let answer = String(decoding: try await hostile.waitForClose(), as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 403 "))
            let body = try #require(answer.components(separatedBy: "\r\n\r\n").last)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String], "not JSON: \(body)")
            #expect(json["reason"]?.hasPrefix(#"CONNECT \x1B[2Jevil\x22\x5Chost\x7F:443"#) == true, "\(json)")
            #expect(!answer.contains("\u{1B}"), "the escape byte is not passed through")
            let allowed = try await RawClient.connect(port: proxyPort)
            try await allowed.send(Array("CONNECT api.push.apple.com:443 HTTP/1.1\r\nHost: api.push.apple.com:443\r\n\r\n".utf8))
            _ = await eventually { !allowed.bytes.isEmpty }
            #expect(String(decoding: allowed.bytes, as: UTF8.self) == "HTTP/1.1 200 Connection Established\r\n\r\n")
            try await allowed.channel.close()
            #expect(try await server.deliveryList().total == 0)
        }
    }
}
