import AsyncHTTPClient
import Foundation
import NIOHTTP1
import PushMockCore
import PushMockInspection
import PushMockServer
import PushMockStores
import PushMockTestSupport
import PushMockTesting
import Testing

/// Web Push (RFC 8030, 8291, 8292) on the push port: subscriptions minted through the inspection
/// API, pushes checked as each service checks them, answered in its own shape, and recorded with
/// the payload opened.
@Suite("Web Push: minted subscriptions, the push service, VAPID and the recorded plaintext")
struct WebPushTests {
    static func mint(
        _ server: PushMockServer, _ service: String, key: String? = nil
    ) async throws -> WebPushSubscriptionResource {
        let body = key.map { #"{"service":"\#(service)","applicationServerKey":"\#($0)"}"# } ?? #"{"service":"\#(service)"}"#
        let reply = await server.inspect("POST", "/api/v1/web-push/subscriptions", body: body)
        try #require(reply.status == 201, "\(reply.status) \(reply.text)")
        return try reply.decode(WebPushSubscriptionResource.self)
    }

    /// Sends `plaintext` to `subscription` as an application server does; returns the status and body.
    static func push(
        _ client: HTTPClient, to subscription: WebPushSubscriptionResource, plaintext: [UInt8]?, authorization: String?,
        headers extra: [(String, String)] = [("ttl", "60")]
    ) async throws -> (Int, String) {
        var headers = extra
        if let authorization { headers.append(("authorization", authorization)) }
        var body: [UInt8]?
        if let plaintext {
            body = try WebPushTestSender.encrypt(plaintext, p256dh: subscription.keys.p256dh, auth: subscription.keys.auth)
            headers.append(("content-encoding", "aes128gcm"))
        }
        let (response, bytes) = try await client.send(subscription.endpoint, method: .POST, headers: headers, body: body)
        return (Int(response.status.code), String(decoding: bytes, as: UTF8.self))
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    @Test("a minted subscription is what PushSubscription.toJSON() gives, in each service's path shape; list, expire, remove")
    func subscriptions() async throws {
        try await withPushMockServer(PushMockConfiguration.testing()) { server in
            let sender = WebPushTestSender()
            let apple = try await Self.mint(server, "apple")
            let mozilla = try await Self.mint(server, "mozilla", key: sender.publicKey)
            let google = try await Self.mint(server, "google")
            let origin = "https://localhost:\(server.pushPort)"
            #expect(apple.endpoint == "\(origin)/\(apple.id)" && apple.id.count >= 40)
            #expect(mozilla.endpoint == "\(origin)/wpush/v2/\(mozilla.id)")
            #expect(google.endpoint == "\(origin)/fcm/send/\(google.id)" && google.id.contains(":APA91b"))
            #expect(Base64URL.decode(Substring(apple.keys.p256dh))?.count == 65 && Base64URL.decode(Substring(apple.keys.auth))?.count == 16)
            #expect(apple.expirationTime == nil && apple.state == "active")
            #expect(mozilla.applicationServerKey == sender.publicKey)
            let list = try await server.inspected("/api/v1/web-push/subscriptions", as: WebPushSubscriptionList.self)
            #expect(list.subscriptions.map(\.id) == [apple.id, mozilla.id, google.id])
            let expired = await server.inspect("POST", "/api/v1/web-push/subscriptions/\(google.id)/expire")
            #expect(try expired.decode(WebPushSubscriptionResource.self).state == "expired")
            #expect(await server.inspect("DELETE", "/api/v1/web-push/subscriptions/\(apple.id)").status == 200)
            #expect(await server.inspect("GET", "/api/v1/web-push/subscriptions/\(apple.id)").status == 404)
            for bad in [
                #"{"service":"opera"}"#, #"{}"#, #"{"service":"apple","applicationServerKey":"short"}"#, #"{"service":"apple","extra":1}"#, "[1]",
            ] {
                let reply = await server.inspect("POST", "/api/v1/web-push/subscriptions", body: bad)
                #expect(reply.status == 400, "\(bad): \(reply.status) \(reply.text)")
            }
            _ = await server.inspect("POST", "/api/v1/reset")
            #expect(try await server.inspected("/api/v1/web-push/subscriptions", as: WebPushSubscriptionList.self).subscriptions.isEmpty)
        }
    }

    @Test("a push is answered 201 with a Location and recorded with its plaintext, its VAPID claims and its headers' facts")
    func accepted() async throws {
        try await withPushMockServer(PushMockConfiguration.testing()) { server in
            let sender = WebPushTestSender()
            let subscription = try await Self.mint(server, "mozilla", key: sender.publicKey)
            let message = #"{"title":"Order shipped","body":"On its way"}"#
            try await withHTTPClient { client in
                let auth = try sender.authorization(
                    aud: "https://localhost:\(server.pushPort)", exp: Self.now() + 3600, sub: "mailto:ops@example.com")
                let (response, headers) = try await client.send(
                    subscription.endpoint, method: .POST,
                    headers: [("ttl", "120"), ("urgency", "high"), ("topic", "order-1"), ("content-encoding", "aes128gcm"), ("authorization", auth)],
                    body: try WebPushTestSender.encrypt(Array(message.utf8), p256dh: subscription.keys.p256dh, auth: subscription.keys.auth))
                #expect(response.status.code == 201, "\(String(decoding: headers, as: UTF8.self))")
                #expect(response.headers["location"].first?.hasPrefix("https://localhost:\(server.pushPort)/m/") == true)
            }
            let delivery = try #require(try await server.deliveryList("service=webpush").deliveries.first)
            #expect(delivery.outcome == .accepted && delivery.status == 201)
            #expect(delivery.deviceToken == subscription.id && delivery.topic == "order-1" && delivery.identity == "mailto:ops@example.com")
            #expect(delivery.body == message, "the recorded body is the plaintext")
            #expect(delivery.payload != nil)
            #expect(delivery.diagnostics.contains { $0.hasPrefix("VAPID (vapid): aud https://localhost:") })
            #expect(delivery.diagnostics.contains { $0.contains("aes128gcm:") && $0.contains("\(message.utf8.count) bytes of plaintext") })
            #expect(delivery.diagnostics.contains("TTL 120 s, urgency high, topic order-1"))
            // The VAPID token is shown decoded, its signature elided, as a provider token is.
            #expect(delivery.authorization?.scheme == "vapid")
            #expect(delivery.authorization?.claims["sub"] == .string("mailto:ops@example.com"))
            let shown = delivery.headers.first { $0.first == "authorization" }?.last ?? ""
            #expect(
                shown.hasPrefix("vapid t=") && shown.contains("…(elided; ?reveal=1 shows it)") && shown.hasSuffix(", k=\(sender.publicKey)"),
                "\(shown)")
        }
    }

    @Test("refusals answer in each service's shape and name the rule in the record")
    func refusals() async throws {
        try await withPushMockServer(PushMockConfiguration.testing()) { server in
            let sender = WebPushTestSender()
            let origin = "https://localhost:\(server.pushPort)"
            let apple = try await Self.mint(server, "apple", key: sender.publicKey)
            let mozilla = try await Self.mint(server, "mozilla", key: sender.publicKey)
            let google = try await Self.mint(server, "google", key: sender.publicKey)
            let good = try sender.authorization(aud: origin, exp: Self.now() + 3600, sub: "mailto:ops@example.com")
            let text = Array("hello".utf8)
            try await withHTTPClient { client in
                // Apple refuses a mailto: subject at localhost; the others take it.
                let localhost = try sender.authorization(aud: origin, exp: Self.now() + 3600, sub: "mailto:a@localhost")
                var (status, body) = try await Self.push(client, to: apple, plaintext: text, authorization: localhost)
                #expect(status == 403 && body == #"{"reason":"BadJwtToken"}"#)
                (status, _) = try await Self.push(client, to: mozilla, plaintext: text, authorization: localhost)
                #expect(status == 201)
                // A wrong aud: Mozilla's 401 errno 109, Google's 403 sentence.
                let elsewhere = try sender.authorization(aud: "https://push.example.net", exp: Self.now() + 3600, sub: "mailto:ops@example.com")
                (status, body) = try await Self.push(client, to: mozilla, plaintext: text, authorization: elsewhere)
                let mozillaError = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
                #expect(status == 401 && mozillaError?["errno"] as? Int == 109 && mozillaError?["code"] as? Int == 401)
                (status, body) = try await Self.push(client, to: google, plaintext: text, authorization: elsewhere)
                #expect(status == 403 && body.contains("aud"))
                // Another key than the subscription's applicationServerKey.
                (status, body) = try await Self.push(
                    client, to: apple, plaintext: text,
                    authorization: try WebPushTestSender().authorization(aud: origin, exp: Self.now() + 60, sub: "https://example.com"))
                #expect(status == 403 && body == #"{"reason":"BadJwtToken"}"#)
                // RFC 8030's headers.
                (status, body) = try await Self.push(client, to: mozilla, plaintext: text, authorization: good, headers: [])
                #expect(status == 400 && body.contains(#""errno":111"#))
                (status, body) = try await Self.push(
                    client, to: apple, plaintext: text, authorization: good, headers: [("ttl", "60"), ("urgency", "urgent")])
                #expect(status == 400 && body == #"{"reason":"BadPriority"}"#)
                (status, _) = try await Self.push(
                    client, to: google, plaintext: text, authorization: good, headers: [("ttl", "60"), ("topic", String(repeating: "a", count: 33))])
                #expect(status == 400)
                (status, body) = try await Self.push(client, to: mozilla, plaintext: Array(repeating: 0x61, count: 4100), authorization: good)
                #expect(status == 413 && body.contains(#""errno":104"#))
                // aesgcm without its Encryption salt: Mozilla's 400 errno 101 (missing crypto keys).
                let (missingKeys, missingBody) = try await client.send(
                    mozilla.endpoint, method: .POST,
                    headers: [("ttl", "60"), ("content-encoding", "aesgcm"), ("crypto-key", "dh=BAAA"), ("authorization", good)],
                    body: Array(repeating: 1, count: 40))
                #expect(missingKeys.status.code == 400 && String(decoding: missingBody, as: UTF8.self).contains(#""errno":101"#))
                // Expired and unknown subscriptions.
                _ = await server.inspect("POST", "/api/v1/web-push/subscriptions/\(apple.id)/expire")
                (status, body) = try await Self.push(client, to: apple, plaintext: text, authorization: good)
                #expect(status == 410 && body == #"{"reason":"Unregistered"}"#)
                _ = await server.inspect("DELETE", "/api/v1/web-push/subscriptions/\(mozilla.id)")
                (status, body) = try await Self.push(client, to: mozilla, plaintext: text, authorization: good)
                #expect(status == 404 && body.contains(#""errno":102"#))
            }
            let refused = try await server.deliveryList("service=webpush&outcome=rejected").deliveries
            #expect(
                Set(refused.compactMap(\.reason)).isSuperset(of: [
                    "subjectLocalhost", "audience", "keyMismatch", "MissingTTL", "InvalidUrgency", "InvalidTopic", "PayloadTooLarge",
                    "ExpiredSubscription", "UnknownSubscription", "MissingCryptoKeys",
                ]))
            #expect(refused.allSatisfy { $0.explanation?.isEmpty == false })
        }
    }

    @Test("a payload the browser cannot open is answered 201, as the push service cannot tell, and recorded as dropped with the rule")
    func undecryptable() async throws {
        try await withPushMockServer(PushMockConfiguration.testing()) { server in
            let target = try await Self.mint(server, "google")
            let other = try await Self.mint(server, "google")
            try await withHTTPClient { client in
                let body = try WebPushTestSender.encrypt(Array("for another".utf8), p256dh: other.keys.p256dh, auth: other.keys.auth)
                let (response, _) = try await client.send(
                    target.endpoint, method: .POST, headers: [("ttl", "0"), ("content-encoding", "aes128gcm")], body: body)
                #expect(response.status.code == 201)
            }
            let delivery = try #require(try await server.deliveryList("service=webpush").deliveries.first)
            #expect(delivery.outcome == .dropped && delivery.reason == "doesNotDecrypt" && delivery.status == 201)
        }
    }

    @Test("subscriptions, keys included, are kept by an SQLite store across restarts: a restored one opens what is sent to it; reset forgets them")
    func keptAcrossRestarts() async throws {
        let path = TestScratch.path("web-push", extension: "sqlite")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = PushMockConfiguration.testing()
        configuration.store = .sqlite(path: path)
        configuration.storeOpeners = StoreOpener.all
        let sender = WebPushTestSender()
        var kept: [WebPushSubscriptionResource] = []
        try await withPushMockServer(configuration) { server in
            kept = [try await Self.mint(server, "apple", key: sender.publicKey), try await Self.mint(server, "google")]
            _ = await server.inspect("POST", "/api/v1/web-push/subscriptions/\(kept[1].id)/expire")
        }
        try await withPushMockServer(configuration) { server in
            let list = try await server.inspected("/api/v1/web-push/subscriptions", as: WebPushSubscriptionList.self).subscriptions
            #expect(list.map(\.id) == kept.map(\.id))
            #expect(list.map(\.keys.p256dh) == kept.map(\.keys.p256dh) && list.map(\.keys.auth) == kept.map(\.keys.auth))
            #expect(list.map(\.state) == ["active", "expired"] && list.first?.applicationServerKey == sender.publicKey)
            try await withHTTPClient { client in
                // The restored private key opens what is sent to the p256dh handed out before the restart.
                let auth = try sender.authorization(aud: "https://localhost:\(server.pushPort)", exp: Self.now() + 600, sub: "https://example.com")
                let (status, body) = try await Self.push(client, to: list[0], plaintext: Array("kept".utf8), authorization: auth)
                #expect(status == 201, "\(body)")
                let (expired, _) = try await Self.push(client, to: list[1], plaintext: nil, authorization: nil)
                #expect(expired == 410, "the restored subscription is still expired")
            }
            let delivery = try await server.deliveryList("service=webpush&token=\(kept[0].id)").deliveries.first
            #expect(delivery?.body == "kept" && delivery?.outcome == .accepted)
            #expect(await server.inspect("POST", "/api/v1/reset").status == 200)
        }
        try await withPushMockServer(configuration) { server in
            let after = try await server.inspected("/api/v1/web-push/subscriptions", as: WebPushSubscriptionList.self)
            #expect(after.subscriptions.isEmpty, "reset forgot them in the store too")
        }
    }

    @Test("a Declarative Web Push that Safari refuses is 201 and dropped at Apple, with the member; a valid one is shown; elsewhere only noted")
    func declarative() async throws {
        try await withPushMockServer(PushMockConfiguration.testing()) { server in
            let sender = WebPushTestSender()
            let apple = try await Self.mint(server, "apple", key: sender.publicKey)
            let google = try await Self.mint(server, "google")
            let auth = try sender.authorization(aud: "https://localhost:\(server.pushPort)", exp: Self.now() + 600, sub: "mailto:ops@example.com")
            let valid =
                #"{"web_push":8030,"notification":{"title":"Ada emailed","body":"Tube strike","navigate":"https://email.example/m/12"},"app_badge":3}"#
            let noNavigate = #"{"web_push":8030,"notification":{"title":"Ada emailed"}}"#
            try await withHTTPClient { client in
                let statuses = [
                    try await Self.push(client, to: apple, plaintext: Array(valid.utf8), authorization: auth).0,
                    try await Self.push(client, to: apple, plaintext: Array(noNavigate.utf8), authorization: auth).0,
                    try await Self.push(client, to: google, plaintext: Array(noNavigate.utf8), authorization: nil).0,
                ]
                #expect(statuses == [201, 201, 201])
            }
            let list = try await server.deliveryList("service=webpush").deliveries.sorted { $0.id < $1.id }
            try #require(list.count == 3)
            #expect(list[0].outcome == .accepted)
            #expect(
                list[0].diagnostics.contains(
                    "Declarative Web Push: shown as \"Ada emailed\" — Tube strike; a tap opens https://email.example/m/12; app badge 3"))
            #expect(list[1].outcome == .dropped && list[1].reason == "DeclarativeWebPushInvalid")
            #expect(list[1].explanation?.hasPrefix("notification.navigate is required") == true)
            #expect(
                list[2].outcome == .accepted && list[2].diagnostics.contains { $0.hasPrefix("web_push: 8030, but notification.navigate is required") }
            )
        }
    }

    @Test("a fault on webpush answers in the service's shape; Retry-After rides along")
    func faults() async throws {
        try await withPushMockServer(PushMockConfiguration.testing()) { server in
            let subscription = try await Self.mint(server, "mozilla")
            server.faults.add(
                FaultRule(
                    id: "busy", match: .init(service: .webpush), action: .reject(status: 429, reason: "TooManyRequests", retryAfter: 30), count: 1))
            try await withHTTPClient { client in
                let (response, bytes) = try await client.send(subscription.endpoint, method: .POST, headers: [("ttl", "60")])
                #expect(response.status.code == 429 && response.headers["retry-after"].first == "30")
                #expect(String(decoding: bytes, as: UTF8.self).contains(#""code":429"#))
            }
            #expect(try await server.deliveryList("service=webpush").deliveries.first?.fault == "busy")
        }
    }
}
