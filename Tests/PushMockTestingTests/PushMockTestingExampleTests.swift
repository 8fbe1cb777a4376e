import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix
import NIOSSL
import PushMockCore
import PushMockInspection
import PushMockServer
import PushMockStore
import PushMockTesting
import Synchronization
import Testing

/// These tests use PushMockTesting the way an app's test suite would: start a server, send with an
/// ordinary HTTP client, wait, assert.
@Suite("PushMockTesting, used as a user would")
struct PushMockTestingExampleTests {
    static let activityToken = String(repeating: "5f", count: 80)

    /// An AsyncHTTPClient that trusts the server's CA.
    static func withClient<T>(_ server: PushMockServer, _ body: (HTTPClient) async throws -> T) async throws -> T {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(try server.credentials.caCertificatePEM.utf8)))
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .automatic
        // A minute to connect: on a CI machine whose cores are all busy, 10 s (the default) is not always enough.
        configuration.timeout = .init(connect: .seconds(60))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let result = try await body(client)
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    static func post(
        _ client: HTTPClient, _ url: String, headers: [(String, String)], body: String
    ) async throws -> (status: Int, body: String, version: HTTPVersion) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await client.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: bytes), response.version)
    }

    @Test("a Live Activity update sent with AsyncHTTPClient arrives, and its content-state can be asserted")
    func liveActivityUpdateArrives() async throws {
        try await withPushMockServer { server in
            try await Self.withClient(server) { client in
                let now = Int(Date().timeIntervalSince1970)
                let payload = #"{"aps":{"event":"update","timestamp":\#(now),"content-state":{"home":2,"away":1}}}"#
                let answer = try await Self.post(
                    client, "\(server.pushURL)/3/device/\(Self.activityToken)",
                    headers: [
                        ("authorization", "bearer \(try server.credentials.apnsToken())"),
                        ("apns-topic", "com.example.app.push-type.liveactivity"),
                        ("apns-push-type", "liveactivity"),
                        ("apns-priority", "10"),
                    ], body: payload)
                #expect(answer.status == 200, "\(answer.body)")
                #expect(answer.version == .http2, "APNs is HTTP/2")

                let updates = try await server.waitForDeliveries(
                    matching: DeliveryFilter(deviceToken: Self.activityToken, pushType: "liveactivity"), count: 1)
                #expect(updates.count == 1)
                let update = try #require(updates.first)
                #expect(update.outcome == .accepted)
                #expect(update.apnsPayload?.event == "update")
                #expect(update.apnsPayload?.timestamp == Int64(now))
                #expect(update.apnsPayload?.contentState?["home"] == .number("2"))
                #expect(update.header("apns-priority") == "10")
            }
        }
    }

    @Test("minted credentials: a valid token is accepted, an expired one and one signed by the wrong key are not")
    func credentials() async throws {
        try await withPushMockServer { server in
            try await Self.withClient(server) { client in
                let credentials = try server.credentials
                let body = #"{"aps":{"alert":"hello"}}"#
                func send(_ jwt: String) async throws -> (Int, String) {
                    let answer = try await Self.post(
                        client, "\(server.pushURL)/3/device/\(String(repeating: "ab", count: 32))",
                        headers: [
                            ("authorization", "bearer \(jwt)"), ("apns-topic", "com.example.app"), ("apns-push-type", "alert"),
                        ], body: body)
                    return (answer.status, answer.body)
                }
                #expect(try await send(credentials.apnsToken()).0 == 200)
                let expired = try await send(credentials.expiredAPNSToken())
                #expect(expired.0 == 403)
                #expect(expired.1.contains("ExpiredProviderToken"))
                let wrongKey = try await send(credentials.apnsTokenSignedWithWrongKey())
                #expect(wrongKey.0 == 403)
                #expect(wrongKey.1.contains("InvalidProviderToken"))
                let rejected = try await server.waitForDeliveries(matching: DeliveryFilter(outcome: .rejected), count: 2)
                #expect(Set(rejected.compactMap(\.reason)) == ["ExpiredProviderToken", "InvalidProviderToken"])
            }
        }
    }

    @Test("apnsToken() gives the token it gave before, issued when first asked (not at a fixed time a test could run across)")
    func reusedProviderToken() async throws {
        try await withPushMockServer { server in
            let before = Int64(Date().timeIntervalSince1970)
            let first = try server.credentials.apnsToken()
            let second = try server.credentials.apnsToken()
            #expect(first == second, "ES256 signatures differ each time: the second call signed anew")
            let claims = try #require(first.split(separator: ".").dropFirst().first)
            var base64 = claims.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            let data = try #require(Data(base64Encoded: base64))
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let issuedAt = try #require((json["iat"] as? NSNumber)?.int64Value)
            // Another test of this process may have asked first, minutes ago at most.
            #expect(before - issuedAt < 3000 && issuedAt <= Int64(Date().timeIntervalSince1970), "iat \(issuedAt), asked at \(before)")
            #expect(try server.credentials.apnsToken(keyID: "OTHERKEY01") != first, "another key id gets a token of its own")
        }
    }

    @Test("FCM: exchange a minted assertion for an access token, send, read the message back typed")
    func fcmMessage() async throws {
        try await withPushMockServer { server in
            try await Self.withClient(server) { client in
                let credentials = try server.credentials
                #expect(credentials.serviceAccountJSON.contains(#""token_uri":"\#(server.pushURL)/token""#))
                let exchange = try await Self.post(
                    client, credentials.tokenURL, headers: [("content-type", "application/x-www-form-urlencoded")],
                    body: try credentials.tokenRequestBody())
                #expect(exchange.status == 200, "\(exchange.body)")
                let accessToken = try #require(
                    (try JSONSerialization.jsonObject(with: Data(exchange.body.utf8)) as? [String: Any])?["access_token"] as? String)
                let registration = "dGVzdC1pbnN0YW5jZS0wMDAx:APA91b" + String(repeating: "Xy9", count: 40)
                let message = #"{"message":{"token":"\#(registration)","notification":{"title":"Goal","body":"2-1"},"data":{"match":"42"}}}"#
                let sent = try await Self.post(
                    client, "\(server.pushURL)/v1/projects/\(credentials.fcmProjectID)/messages:send",
                    headers: [
                        ("authorization", "Bearer \(accessToken)"), ("content-type", "application/json"),
                    ], body: message)
                #expect(sent.status == 200, "\(sent.body)")
                let fcm = try await server.waitForDeliveries(matching: DeliveryFilter(service: .fcm), count: 1)
                let view = try #require(fcm.first?.fcmMessage)
                #expect(view.token == registration)
                #expect(view.notificationTitle == "Goal")
                #expect(view.data == ["match": "42"])
            }
        }
    }

    @Test("faults, devices and reset from the test: a 410 is injected, a token unregistered, then everything reset")
    func faultsDevicesReset() async throws {
        try await withPushMockServer { server in
            try await Self.withClient(server) { client in
                let token = String(repeating: "cd", count: 32)
                func send() async throws -> (Int, String) {
                    let answer = try await Self.post(
                        client, "\(server.pushURL)/3/device/\(token)",
                        headers: [
                            ("authorization", "bearer \(try server.credentials.apnsToken())"), ("apns-topic", "com.example.app"),
                            ("apns-push-type", "alert"),
                        ], body: #"{"aps":{"alert":"hi"}}"#)
                    return (answer.status, answer.body)
                }
                server.injectFault("gone", match: .init(service: .apns, token: token), reject: 410, reason: "Unregistered", count: 1)
                #expect(try await send().0 == 410)
                #expect(try await send().0 == 200, "the fault fired once")
                let faulted = try await server.deliveries(matching: DeliveryFilter(reason: "Unregistered"))
                #expect(faulted.first?.fault == "gone")

                server.devices.unregister(token: token, at: 1_767_225_600_000)
                let unregistered = try await send()
                #expect(unregistered.0 == 410)
                #expect(unregistered.1.contains("1767225600000"))

                try await server.reset()
                #expect(try await server.deliveries().isEmpty)
                #expect(try await send().0 == 200, "reset brings the registry back to the configuration")
            }
        }
    }

    @Test("waitForDeliveries throws at the timeout with what it found")
    func waitTimeout() async throws {
        try await withPushMockServer { server in
            let started = ContinuousClock.now
            do {
                try await server.waitForDeliveries(matching: DeliveryFilter(service: .fcm), count: 1, timeout: .milliseconds(300))
                Issue.record("expected a timeout")
            } catch let error as PushMockTestingError {
                #expect(error.found.isEmpty)
                #expect(error.description.contains("0 of 1"))
            }
            #expect(ContinuousClock.now - started >= .milliseconds(250))
        }
    }

    @Test("PushMockClient drives a server over HTTP as it would a separate process")
    func remoteClient() async throws {
        try await withPushMockServer { server in
            try await Self.withClient(server) { client in
                let remote = PushMockClient(inspectionURL: try #require(server.inspectionURL), httpClient: client)
                try await remote.reset()
                try await remote.addFault(
                    FaultRule(id: "busy", match: .init(service: .apns), action: .reject(status: 429, reason: "TooManyRequests"), count: 1))
                // (A wait counts what is already there: the pushes may come before it is registered.)
                async let waited = remote.waitForDeliveries(["service": "apns"], count: 2, timeout: .seconds(60))
                for expected in [429, 200] {
                    let answer = try await Self.post(
                        client, "\(server.pushURL)/3/device/\(String(repeating: "ef", count: 32))",
                        headers: [
                            ("authorization", "bearer \(try server.credentials.apnsToken())"), ("apns-topic", "com.example.app"),
                            ("apns-push-type", "alert"),
                        ], body: #"{"aps":{"alert":"hi"}}"#)
                    #expect(answer.status == expected)
                }
                let deliveries = try await waited
                #expect(deliveries.map(\.status) == [429, 200], "oldest first")
                #expect(deliveries[0].fault == "busy")
                #expect(deliveries[1].apnsPayload?.alertBody == "hi")
                #expect(try await remote.deliveries(["outcome": "rejected"]).count == 1)
                await #expect(throws: PushMockTestingError.self) {
                    try await remote.deliveries(["colour": "red"])
                }
                await #expect(throws: PushMockTestingError.self) {
                    try await remote.waitForDeliveries(["service": "fcm"], count: 1, timeout: .milliseconds(200))
                }
                #expect(try await remote.clearDeliveries() == 2)
            }
        }
    }

    @Test("PushMockClient takes the DeliveryFilter the in-process server takes, and finds what it finds")
    func remoteFilter() async throws {
        try await withPushMockServer { server in
            try await Self.withClient(server) { client in
                let remote = PushMockClient(inspectionURL: try #require(server.inspectionURL), httpClient: client)
                for (token, topic) in [("ef", "com.example.app"), ("ab", "com.example.other")] {
                    _ = try await Self.post(
                        client, "\(server.pushURL)/3/device/\(String(repeating: token, count: 32))",
                        headers: [
                            ("authorization", "bearer \(try server.credentials.apnsToken())"), ("apns-topic", topic), ("apns-push-type", "alert"),
                        ], body: #"{"aps":{"alert":"to \#(token)"}}"#)
                }
                var filters: [DeliveryFilter] = [
                    DeliveryFilter(service: .apns), DeliveryFilter(deviceToken: String(repeating: "EF", count: 32)),
                    DeliveryFilter(topic: "com.example.other"),
                    DeliveryFilter(outcome: .rejected), DeliveryFilter(service: .fcm),
                ]
                var text = DeliveryFilter()
                text.text = "TO AB"
                var status = DeliveryFilter()
                status.status = 200
                status.since = 0
                filters += [text, status]
                for filter in filters {
                    let local = try await server.deliveries(matching: filter).map(\.id)
                    let viaHTTP = try await remote.deliveries(matching: filter).map(\.id)
                    #expect(viaHTTP == local, "\(filter)")
                }
                #expect(try await remote.deliveries(matching: text).count == 1)
                #expect(try await remote.waitForDeliveries(matching: DeliveryFilter(topic: "com.example.app"), count: 1).count == 1)
                #expect(try await remote.clearDeliveries(matching: DeliveryFilter(topic: "com.example.app")) == 1)
                #expect(try await server.deliveries().count == 1)
            }
        }
    }

    @Test("a DeliveryFilter's query items read back as the same filter, field by field")
    func filterRoundTrip() throws {
        var filter = DeliveryFilter(
            service: .apns, deviceToken: "ab", topic: "t", pushType: "alert", project: "p", outcome: .dropped, reason: "R", after: 3)
        filter.environment = "sandbox"
        filter.status = 410
        filter.before = 9
        filter.since = 1000
        filter.until = 2000
        filter.text = "hello world"
        filter.deviceOutcome = .dropped
        filter.dropReason = "LiveActivityExpired"
        #expect(filter.queryItems.count == 16, "every field")
        #expect(try DeliveryFilter(queryItems: filter.queryItems) == filter)
        #expect(try DeliveryFilter(queryItems: []) == DeliveryFilter())
    }

    @Test("the server is shut down even when the test body throws")
    func shutsDownOnThrow() async throws {
        struct Boom: Error {}
        var configuration = PushMockConfiguration.testing()
        // No protocol deadline: only a shutdown closes the idle connection below, one second in.
        configuration.protocolDeadlineSeconds = nil
        configuration.shutdownGracePeriodSeconds = 1
        var port = 0
        var idle: (any Channel)?
        do {
            try await withPushMockServer(configuration) { server in
                port = server.pushPort
                idle = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get()
                throw Boom()
            }
            Issue.record("the error should propagate")
        } catch is Boom {}
        #expect(port > 0)
        // (Not a fresh connect to the port: a test running alongside may have been given it since.)
        let channel = try #require(idle)
        let closed = Atomic<Bool>(false)
        channel.closeFuture.whenComplete { _ in closed.store(true, ordering: .sequentiallyConsistent) }
        let deadline = ContinuousClock.now + .seconds(60)
        while !closed.load(ordering: .sequentiallyConsistent), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let wasClosed = closed.load(ordering: .sequentiallyConsistent)
        #expect(wasClosed, "the server left its connection open after the body threw")
        try? await channel.close()
    }
}
