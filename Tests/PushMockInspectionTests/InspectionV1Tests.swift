import AsyncHTTPClient
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

@Suite("Inspection API v1: events, curl, credentials, filters, token")
struct InspectionV1Tests {
    typealias S = APNSTestServer

    @Test("events stream deliveries in order as they are recorded, and Last-Event-ID resumes after the last one seen")
    func eventsStreamAndResume() async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            try await withHTTPClient { client in
                let port = server.inspectionPort!
                // (after=0: the pushes are events whether they come before or after the stream opens.)
                async let live = ServerSentEvents.read(port: port, target: "/api/v1/events?service=apns&after=0", count: 3)
                #expect(try await APNSTestServer.push(client, server, issuedAt: clock.nowSeconds) == 200)
                #expect(try await APNSTestServer.push(client, server, token: "zz", issuedAt: clock.nowSeconds) == 400)
                #expect(try await APNSTestServer.push(client, server, issuedAt: clock.nowSeconds) == 200)
                let (head, events) = try await live
                #expect(head.contains("text/event-stream"), "\(head)")
                #expect(events.map(\.type) == ["delivery", "delivery", "delivery"])
                let ids = events.compactMap { UInt64($0.id) }
                #expect(ids.count == 3 && ids == ids.sorted(), "in recording order: \(ids)")
                #expect(events.map { $0.data["outcome"] as? String } == ["accepted", "rejected", "accepted"])
                #expect(events[1].data["reason"] as? String == "BadDeviceToken")

                // A client that saw only the first event resumes with the other two, then a new one.
                async let resumed = ServerSentEvents.read(port: port, target: "/api/v1/events", headers: ["Last-Event-ID: \(ids[0])"], count: 3)
                #expect(try await APNSTestServer.push(client, server, issuedAt: clock.nowSeconds) == 200)
                let again = try await resumed.events.compactMap { UInt64($0.id) }
                #expect(again.count == 3)
                #expect(Array(again.prefix(2)) == Array(ids.dropFirst()))
                #expect(again.last! > ids.last!)
                // A closed stream's wait is cancelled when its connection's close is noticed: on a
                // loaded machine that takes longer than a fixed pause.
                let cleared = await eventually { await server.store.statistics().waiters == 0 }
                let left = await server.store.statistics().waiters
                #expect(cleared, "closed streams leave no waiter behind (\(left) left)")

                let bad = await server.inspect("GET", "/api/v1/events?colour=red")
                #expect(bad.status == 400)
                #expect(bad.errorMessage?.contains("unknown filter colour") == true)
            }
        }
    }

    @Test("curl reproduces a recorded push: same headers, body, HTTP version and host name")
    func curlCommand() async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            try await withHTTPClient { client in
                #expect(try await APNSTestServer.push(client, server, issuedAt: clock.nowSeconds) == 200)
                let id = try #require(try await server.deliveryList("limit=1").deliveries.first?.id)
                let curl = await server.inspect("GET", "/api/v1/deliveries/\(id)/curl")
                #expect(curl.status == 200)
                #expect(curl.header("content-type") == "text/plain; charset=utf-8")
                let command = curl.text
                #expect(command.contains("--resolve 'api.sandbox.push.apple.com:\(server.pushPort):127.0.0.1'"), "\(command)")
                #expect(command.contains("-H 'apns-topic: com.example.app'"))
                #expect(command.contains(#"--data-binary '{"aps":{"alert":{"title":"Hi","body":"There"}}}'"#))
                #expect(command.contains("https://api.sandbox.push.apple.com:\(server.pushPort)/3/device/\(S.deviceToken)"))
                #expect(!command.contains("content-length"))
                #expect(await server.inspect("GET", "/api/v1/deliveries/999999/curl").status == 404)
            }
        }
    }

    @Test("keys and service accounts are listed without private keys")
    func credentials() async throws {
        var configuration = S.configuration()
        configuration.fcm.serviceAccounts = [.pem(FCMTestServer.material.fcmServiceAccountJSON)]
        try await withPushMockServer(configuration) { server in
            try await withHTTPClient { client in
                let keys = try await server.inspected("/api/v1/keys", as: KeyList.self)
                #expect(keys.keys.map(\.keyId) == [DevCertificates.sampleAPNSKeyID, "SECONDKEY1", "PRODKEY001"])
                #expect(keys.bundles.first?.bundleId == "com.example.app")
                let accounts = await server.inspect("GET", "/api/v1/service-accounts")
                #expect(accounts.status == 200)
                let account = try #require(try accounts.decode(ServiceAccountList.self).serviceAccounts.first)
                #expect(account.projectId == FCMTestServer.project)
                #expect(!accounts.text.contains(#""privateKey""#), "no privateKey field")
                #expect(await !server.inspect("GET", "/api/v1/service-accounts").text.contains("PRIVATE KEY"))
                #expect(await !server.inspect("GET", "/api/v1/keys").text.contains("PRIVATE KEY"))
            }
        }
    }

    @Test("filters: time range, text in payload, device outcome; bad values are 400")
    func newFilters() async throws {
        let clock = PushMockClock.manual(startingAt: S.start)
        try await withPushMockServer(S.configuration(clock: clock)) { server in
            try await withHTTPClient { client in
                #expect(try await APNSTestServer.push(client, server, issuedAt: clock.nowSeconds) == 200)
                clock.advance(byMilliseconds: 60_000)
                #expect(try await APNSTestServer.push(client, server, token: "zz", issuedAt: S.start / 1000) == 400)
                #expect(try await server.deliveryList("since=2026-01-01T00:00:30Z").total == 1)
                let early = try await server.deliveryList("until=\(S.start + 30_000)")
                #expect(early.total == 1)
                #expect(early.deliveries.first?.outcome == .accepted)
                #expect(try await server.deliveryList("text=THERE").total == 2, "case-insensitive search in the body")
                #expect(try await server.deliveryList("text=nowhere").total == 0)
                let applied = try await server.deliveryList("deviceOutcome=applied")
                #expect(applied.total == 1)
                #expect(applied.deliveries.first?.deviceOutcome == "applied")
                #expect(try await server.deliveryList("deviceOutcome=none").total == 1)
                for bad in ["since=yesterday", "deviceOutcome=maybe", "text="] {
                    let reply = await server.inspect("GET", "/api/v1/deliveries?\(bad)")
                    #expect(reply.status == 400, "\(bad)")
                    #expect(reply.errorMessage != nil, "\(bad): \(reply.text)")
                }
            }
        }
    }

    @Test("an inspection token guards the API but not the health checks")
    func bearerToken() async throws {
        var configuration = S.configuration()
        configuration.inspectionToken = "s3cret"
        try await withPushMockServer(configuration) { server in
            let denied = await server.inspect("GET", "/api/v1/deliveries", headers: [])
            #expect(denied.status == 401)
            #expect(denied.header("www-authenticate")?.contains("Bearer") == true)
            #expect(await server.inspect("GET", "/api/v1/deliveries", headers: [("authorization", "Bearer nope!!")]).status == 401)
            #expect(await server.inspect("GET", "/api/v1/deliveries", headers: [("authorization", "Bearer s3cret")]).status == 200)
            #expect(await server.inspect("GET", "/api/v1/deliveries?access_token=s3cret", headers: []).status == 200)
            #expect(await server.inspect("GET", "/metrics", headers: []).status == 401)
            #expect(await server.inspect("GET", "/livez", headers: []).status == 200)
            try await withHTTPClient { client in
                // And over the real port.
                let (denied, _) = try await client.send("http://127.0.0.1:\(server.inspectionPort!)/api/v1/deliveries")
                #expect(denied.status == .unauthorized)
                #expect(denied.headers.first(name: "www-authenticate")?.contains("Bearer") == true)
            }
        }
    }

    @Test("openapi.yaml is served and names every route, method and known fault reason the server has")
    func openAPIDocument() async throws {
        try await withPushMockServer(S.configuration()) { server in
            try await withHTTPClient { client in
                let (response, body) = try await client.send("http://127.0.0.1:\(server.inspectionPort!)/api/v1/openapi.yaml")
                #expect(response.status == .ok)
                let yaml = String(decoding: body, as: UTF8.self)
                #expect(yaml.hasPrefix("openapi: 3.0.3"))
                // The paths block: "  /path:" then methods at four spaces.
                var documented: [String: Set<String>] = [:]
                var current: String?
                for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
                    if line.hasPrefix("  /"), line.hasSuffix(":") {
                        current = String(line.dropFirst(2).dropLast())
                    } else if !line.hasPrefix(" "), !line.isEmpty {
                        current = nil
                    } else if let path = current, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                        let method = line.trimmingCharacters(in: .whitespaces).dropLast().uppercased()
                        if ["GET", "PUT", "POST", "DELETE", "HEAD"].contains(method) { documented[path, default: []].insert(method) }
                    }
                }
                // Every operation of the route table is documented, and every documented
                // operation is in the table (HEAD is implied by GET in the document).
                var served: [String: Set<String>] = [:]
                for route in InspectionRouter.routes where route.method != "HEAD" {
                    served[route.path, default: []].insert(route.method)
                }
                for (path, methods) in served {
                    #expect(documented[path] == methods, "\(path): route table \(methods.sorted()), openapi.yaml \(documented[path]?.sorted() ?? [])")
                }
                for (path, methods) in documented {
                    #expect(
                        served[path] == methods,
                        "openapi.yaml documents \(methods.sorted()) \(path); the route table has \(served[path]?.sorted() ?? [])")
                }
                let known = APNSRejectionReason.all.map(\.reason) + FCMErrorCode.all.map(\.rawValue)
                #expect(yaml.contains("enum: [" + known.joined(separator: ", ") + "]"), "KnownReason lists every APNs reason and FCM error code")
            }
        }
    }

    @Test("undeclared methods on known paths are 405 with Allow; unknown paths 404")
    func methodNotAllowed() async throws {
        try await withPushMockServer(S.configuration()) { server in
            let patch = await server.inspect("PATCH", "/api/v1/deliveries")
            #expect(patch.status == 405)
            #expect(patch.header("allow") == "GET, DELETE")
            #expect(await server.inspect("GET", "/api/v1/devices/abc").status == 404, "a path parameter matches; the device is unknown")
            #expect(await server.inspect("POST", "/api/v1/devices/abc").header("allow") == "GET, PUT, DELETE")
            #expect(await server.inspect("POST", "/metrics").status == 405)
            #expect(await server.inspect("GET", "/api/v2/anything").status == 404)
            #expect(await server.inspect("GET", "/api/v1/deliveries/wait/extra").status == 404)
            try await withHTTPClient { client in
                // And over the real port, with the Allow header on the wire.
                let (patch, _) = try await client.send("http://127.0.0.1:\(server.inspectionPort!)/api/v1/deliveries", method: .PATCH)
                #expect(patch.status == .methodNotAllowed)
                #expect(patch.headers.first(name: "allow") == "GET, DELETE")
            }
        }
    }

    @Test("the event stream over HTTP/2 (h2c) answers 505 with how to connect instead")
    func eventsOverHTTP2() async throws {
        try await withPushMockServer(S.configuration()) { server in
            let client = try await H2FrameClient.connect(port: server.inspectionPort!, tls: false)
            client.send(streamID: 1, method: "GET", path: "/api/v1/events")
            #expect(try await client.status(of: 1) == "505")
            _ = try await client.completedStream(1)
            #expect(String(decoding: client.body(of: 1), as: UTF8.self).contains("HTTP/1.1"))
            await client.close()
        }
    }
}
