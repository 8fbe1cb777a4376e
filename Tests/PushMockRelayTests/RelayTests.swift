import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import PushMockCore
import PushMockInspection
import PushMockStore
import PushMockTestSupport
import PushMockTesting
import Testing

@testable import PushMockServer

/// Two in-process PushMocks: A relays to B with credentials of its own (B's second APNs key, a
/// service account whose token_uri is B's), as it would to Apple's and Google's hosts.
@Suite("Relay: A records and forwards to B; B's answers are recorded on A")
struct RelayTests {
    typealias S = APNSTestServer
    typealias F = FCMTestServer
    typealias L = LiveActivityTestServer

    /// A's relay to `upstream` (B's push port), signing as B's key SECONDKEY1 and B's service account.
    /// The upstream is named by address: a name would be resolved on the relay's lowest-priority
    /// event loop through the global pool, whose new worker would then run the other suites' tasks
    /// at that priority while they load both cores.
    static func relaying(to port: Int, mode: RelayConfiguration.Mode = .relay) throws -> RelayConfiguration {
        var relay = RelayConfiguration()
        relay.mode = mode
        relay.apns = .init(
            url: "https://127.0.0.1:\(port)",
            credential: .token(key: .pem(S.secondKey.pemRepresentation), keyID: "SECONDKEY1", teamID: DevCertificates.sampleAPNSTeamID))
        var account = try #require(try JSONSerialization.jsonObject(with: Data(F.material.fcmServiceAccountJSON.utf8)) as? [String: String])
        account["token_uri"] = "https://127.0.0.1:\(port)/token"
        relay.fcm = .init(
            url: "https://127.0.0.1:\(port)",
            serviceAccount: .pem(String(decoding: try JSONSerialization.data(withJSONObject: account), as: UTF8.self)))
        relay.trustedCAs = .pem(PushMockConfiguration.testMaterial.caCertificatePEM)
        relay.backoff = .milliseconds(20)
        // One attempt is one attempt however busy the machine: its timeout only bounds a hang.
        relay.timeout = TestDeadline.hang
        relay.connectTimeout = TestDeadline.hang
        // Nor does a passthrough sender's wait (the relay's connections open at the lowest CPU
        // priority: on a busy machine the first one can take longer than the 8 s default).
        relay.passthroughDeadline = TestDeadline.hang
        return relay
    }

    /// The sender's provider token: one for the whole test (a connection whose token changes
    /// within 20 minutes gets TooManyProviderTokenUpdates, as from APNs).
    static let senderToken = S.token(issuedAt: Int64(Date().timeIntervalSince1970))

    static func alert(_ client: HTTPClient, _ server: PushMockServer, token: String = S.deviceToken) async throws -> (Int, String) {
        let (response, body) = try await client.send(
            "https://localhost:\(server.pushPort)/3/device/\(token)", method: .POST, headers: S.alertHeaders(token: senderToken), body: S.alertBody)
        return (Int(response.status.code), String(decoding: body, as: UTF8.self))
    }

    /// The deliveries of `server` matching `query` once each has a relay answer (`limit` at most).
    static func answered(
        _ server: PushMockServer, _ query: String, count: Int, within limit: Duration = TestDeadline.hang
    ) async throws
        -> [DeliveryResource]
    {
        var list: [DeliveryResource] = []
        let answered = try await eventually(within: limit) {
            list = try await server.deliveryList(query).deliveries
            return list.count >= count && list.allSatisfy { $0.relay != nil }
        }
        if answered { return list }
        Issue.record("\(query): \(list.count) of \(count) deliveries, relay answers: \(list.map { String(describing: $0.relay) })")
        return list
    }

    @Test("relay skips Web Push, and each push's record says why")
    func webPushIsNotRelayed() async throws {
        try await withPushMockServer(PushMockConfiguration.testing()) { b in
            var configuration = PushMockConfiguration.testing()
            configuration.relay = try Self.relaying(to: b.pushPort)
            try await withPushMockServer(configuration) { a in
                let minted = await a.inspect("POST", "/api/v1/web-push/subscriptions", body: #"{"service":"mozilla"}"#)
                let subscription = try minted.decode(WebPushSubscriptionResource.self)
                try await withHTTPClient { client in
                    let (response, _) = try await client.send(subscription.endpoint, method: .POST, headers: [("ttl", "60")])
                    #expect(response.status.code == 201)
                }
                let delivery = try #require(try await a.deliveryList("service=webpush").deliveries.first)
                #expect(delivery.diagnostics.contains { $0.hasPrefix("not relayed:") } && delivery.relay == nil)
                #expect(try await b.deliveryList().total == 0, "nothing reached the upstream")
            }
        }
    }

    @Test(
        "relay: an APNs alert, an FCM message and a Live Activity start and update are recorded on A and B, agreeing; B sees A's key and project, never the sender's token"
    )
    func relayMode() async throws {
        // Live Activity types declared; the system clock, as the relay signs with it.
        var upstream = L.configuration().0
        upstream.clock = .system
        try await withPushMockServer(upstream) { b in
            var configuration = upstream
            configuration.relay = try Self.relaying(to: b.pushPort)
            try await withPushMockServer(configuration) { a in
                try await withHTTPClient { client in
                    let (status, _) = try await Self.alert(client, a)
                    #expect(status == 200)
                    let bearer = try await F.accessToken(client, port: a.pushPort)
                    let (sent, json, _) = try await F.send(
                        client, port: a.pushPort, bearer: bearer, body: #"{"message":{"token":"\#(F.token)","data":{"a":"b"}}}"#)
                    #expect(sent == 200, "\(json)")
                    let now = Int64(Date().timeIntervalSince1970)
                    let jwt = Self.senderToken
                    #expect(try await L.send(client, a, token: L.pushToStart, jwt: jwt, aps: L.start(now)).0 == 200)
                    let activity = try #require(try await L.newest(a).issuedActivityToken)
                    let update = #""event":"update","timestamp":\#(now + 1),"content-state":{"score":"1-0"}"#
                    #expect(try await L.send(client, a, token: activity, jwt: jwt, aps: update).0 == 200)

                    let forwarded = try await Self.answered(a, "relayAgrees=true", count: 4)
                    #expect(forwarded.count == 4, "\(forwarded.map(\.path))")
                    // Each was answered 200 and agrees. A first attempt can fail on a machine whose
                    // cores are all busy (the relay's network work runs at the lowest priority, and
                    // B may close a connection whose TLS handshake it waited too long for): a retry
                    // is then the relay doing its job, so more than one attempt is allowed here.
                    #expect(
                        forwarded.allSatisfy {
                            $0.relay?.status == 200 && $0.relay?.agrees == true
                                && (1...configuration.relay.attempts).contains($0.relay?.attempts ?? 0)
                        }, "\(forwarded.map { String(describing: $0.relay) })")
                    let fcm = try #require(forwarded.first { $0.service == "fcm" })
                    #expect(fcm.relay?.upstreamId?.hasPrefix("projects/\(F.project)/messages/") == true, "\(String(describing: fcm.relay))")
                    #expect(try await a.deliveryList("service=oauth").total == 1, "the sender's own token exchange is A's, not forwarded")

                    let onB = try await b.deliveryList("reveal=1")
                    #expect(Set(onB.deliveries.map(\.service)) == ["apns", "fcm", "oauth"], "B got the pushes and A's own token request")
                    let apnsOnB = onB.deliveries.filter { $0.service == "apns" }
                    #expect(apnsOnB.count == 3)
                    #expect(apnsOnB.allSatisfy { $0.identity == "\(DevCertificates.sampleAPNSTeamID)/SECONDKEY1" && $0.outcome != .rejected })
                    #expect(onB.deliveries.first { $0.service == "fcm" }?.project == F.project)
                    let signature = String(jwt.split(separator: ".")[2])
                    #expect(!onB.deliveries.contains { $0.headers.contains { $0[1].contains(signature) } }, "the sender's token never reaches B")
                    #expect(!onB.deliveries.contains { $0.headers.contains { $0[1].contains(bearer) } }, "nor its access token")
                    #expect(await !a.inspect("GET", "/api/v1/keys").text.contains("PRIVATE KEY"), "the relay's key is never shown")
                }
            }
        }
    }

    @Test(
        "shadow: a push A rejects (strict) and B accepts (apple) is forwarded and recorded with agrees false, listed by relayAgrees=false and counted; parity records, the catalogue and fixtures show every answer"
    )
    func shadowDisagreement() async throws {
        var upstream = F.configuration()
        upstream.apns.options.liveActivity.profile = .apple
        try await withPushMockServer(upstream) { b in
            var configuration = F.configuration()
            configuration.apns.options.liveActivity.profile = .strict
            configuration.relay = try Self.relaying(to: b.pushPort, mode: .shadow)
            try await withPushMockServer(configuration) { a in
                try await withHTTPClient { client in
                    let now = Int64(Date().timeIntervalSince1970)
                    // A timestamp in milliseconds: strict rejects it, Apple's device drops it.
                    let start = L.start(now * 1000)
                    let jwt = S.token(issuedAt: now)
                    let (status, refusal) = try await L.send(client, a, token: L.pushToStart, jwt: jwt, aps: start)
                    #expect(status == 400 && refusal["reason"] as? String == "LiveActivityTimestampInMilliseconds", "\(refusal)")
                    let disagreeing = try await Self.answered(a, "relayAgrees=false", count: 1)
                    let relay = try #require(disagreeing.first?.relay)
                    #expect(relay.status == 200 && relay.agrees == false && disagreeing.first?.status == 400, "\(relay)")
                    #expect(try await b.deliveryList("outcome=dropped&reason=LiveActivityTimestampInMilliseconds").total == 1)
                    #expect(await a.inspect("GET", "/metrics").text.contains(#"pushmock_relay_answers_total{service="apns",agrees="false"} 1"#))
                    let wait = await a.inspect("GET", "/api/v1/deliveries/wait?relayAgrees=false&count=1&timeout=1s")
                    #expect(wait.status == 400 && wait.errorMessage?.contains("relayAgrees") == true, "\(wait.text)")
                    try await Self.checkParity(client, a, b, jwt: jwt, disagreement: try #require(disagreeing.first?.id))
                }
            }
        }
    }

    /// In shadow mode, after the Live Activity rule A applies and B does not: a bad device token
    /// (both 400 BadDeviceToken) and the same alert twice (both 200). The parity records count each
    /// answer by A's reason; the catalogue shows them beside its entries; the fixtures are normalised,
    /// one per distinct pair; forgetting them empties all three.
    static func checkParity(_ client: HTTPClient, _ a: PushMockServer, _ b: PushMockServer, jwt: String, disagreement: UInt64) async throws {
        for token in ["not-a-device-token", S.deviceToken, String(repeating: "cd", count: 32)] {
            let (response, _) = try await client.send(
                "https://localhost:\(a.pushPort)/3/device/\(token)", method: .POST, headers: S.alertHeaders(token: jwt), body: S.alertBody)
            #expect(response.status.code == (token.count == 64 ? 200 : 400))
        }
        let forwarded = try await Self.answered(a, "service=apns", count: 4)
        #expect(forwarded.allSatisfy { $0.relay?.status != nil }, "\(forwarded.map { String(describing: $0.relay) })")
        let upstream = "127.0.0.1:\(b.pushPort)"
        let records = try await a.inspected("/api/v1/parity", as: ParityList.self).records
        #expect(records.map(\.reason) == [nil, "BadDeviceToken", "LiveActivityTimestampInMilliseconds"], "\(records)")
        #expect(records.allSatisfy { $0.service == "apns" && $0.upstream == upstream })
        #expect(records[0].agreed == 2 && records[0].disagreed == 0, "\(records[0])")
        #expect(records[1].agreed == 1 && records[1].summary.hasPrefix("BadDeviceToken: agreed with \(upstream) once, last on "), "\(records[1])")
        #expect(
            records[2].agreed == 0 && records[2].disagreed == 1 && records[2].upstreamAnswers == ["200": 1]
                && records[2].lastDisagreement == disagreement, "\(records[2])")

        let catalogue = try await a.inspected("/api/v1/rejections", as: RejectionList.self)
        #expect(catalogue.parity == records)
        #expect(catalogue.entries.first { $0.id == "apns-bad-device-token" }?.parity == [records[1]])
        let rule = catalogue.entries.filter { $0.reason == "LiveActivityTimestampInMilliseconds" }
        #expect(!rule.isEmpty && rule.allSatisfy { $0.parity == [records[2]] }, "\(rule.map(\.id))")
        #expect(catalogue.entries.filter { !$0.parity.isEmpty }.count == 1 + rule.count)

        let fixtures = try await a.inspected("/api/v1/parity/fixtures", as: ParityFixtureList.self)
        // The two alerts to two devices are one fixture.
        #expect(fixtures.deliveriesRead == 4 && fixtures.fixtures.count == 3, "\(fixtures.fixtures.map(\.name))")
        #expect(
            fixtures.fixtures.map { $0.name.split(separator: "-").dropLast().joined(separator: "-") } == [
                "apns-BadDeviceToken-agrees", "apns-LiveActivityTimestampInMilliseconds-disagrees", "apns-success-agrees",
            ])
        let success = try #require(fixtures.fixtures.last)
        #expect(success.request.path == "/3/device/{device}" && success.upstreamAnswer.status == 200 && success.agrees)
        #expect(!success.request.headers.contains { $0.name == "authorization" } && success.request.headers.contains { $0.name == "apns-topic" })
        #expect(fixtures.fixtures[1].request.body["aps"]?["timestamp"] == .string("{time}"))

        let cleared = await a.inspect("DELETE", "/api/v1/parity")
        #expect(cleared.status == 200 && cleared.text.contains(#""removed":3"#), "\(cleared.text)")
        #expect(try await a.inspected("/api/v1/parity", as: ParityList.self).records.isEmpty)
        #expect(try await a.inspected("/api/v1/rejections", as: RejectionList.self).entries.allSatisfy(\.parity.isEmpty))
    }

    @Test("relay: a stopped upstream never holds the sender; the error is recorded; forwarding resumes when it is back")
    func upstreamDown() async throws {
        // B is down: its port (a TCP relay's, which no other test can take) closes every connection.
        let gate = try await TCPRelay.down()
        defer { Task { await gate.close() } }
        var configuration = F.configuration()
        configuration.relay = try Self.relaying(to: gate.port)
        // Three attempts 10 s and 20 s apart: the relay's answer comes 30 s after the push at the
        // earliest, so a sender answered before it was not held by the relay (however busy the
        // machine, three pushes take far less).
        configuration.relay.backoff = .seconds(10)
        try await withPushMockServer(configuration) { a in
            try await withHTTPClient { client in
                for _ in 0..<3 {
                    let (status, body) = try await Self.alert(client, a)
                    #expect(status == 200, "\(body)")
                }
                let pending = try await a.deliveryList("service=apns").deliveries
                #expect(pending.count == 3 && pending.allSatisfy { $0.relay == nil }, "answered before the relay gave up: \(pending.map(\.relay))")
                let failed = try await Self.answered(a, "service=apns", count: 3)
                #expect(failed.allSatisfy { $0.relay?.status == nil && $0.relay?.error != nil && $0.relay?.attempts == 3 }, "\(failed.map(\.relay))")
                #expect(failed.allSatisfy { $0.relay?.agrees == nil })

                // B back, on the same port.
                try await withPushMockServer(F.configuration()) { b in
                    gate.connect(to: b.pushPort)
                    #expect(try await Self.alert(client, a).0 == 200)
                    let resumed = try await Self.answered(a, "service=apns&limit=1", count: 1)
                    #expect(resumed.first?.relay?.status == 200, "\(String(describing: resumed.first?.relay))")
                    #expect(try await b.deliveryList("service=apns").total == 1)
                }
            }
        }
    }

    @Test("the event stream sends the delivery at once and a relay event when the upstream's answer (here: none) is in")
    func relayEvent() async throws {
        let down = try await TCPRelay.down()
        defer { Task { await down.close() } }
        var configuration = F.configuration()
        configuration.relay = try Self.relaying(to: down.port)
        // Attempts 1 s and 2 s apart: the answer (none) is in 3 s after the push, long after its
        // delivery event (a stream that reads the delivery later gets the answer with it instead).
        configuration.relay.backoff = .seconds(1)
        try await withPushMockServer(configuration) { a in
            let inspection = try #require(a.inspectionPort)
            let raw = try await RawClient.connect(port: inspection)
            try await raw.send(Array("GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".utf8))
            // The push goes after the stream's preamble: the stream starts after the newest delivery
            // there is when it opens, so a push sent before that would never be an event on it.
            _ = await eventually { String(decoding: raw.bytes, as: UTF8.self).contains("retry: 1000") }
            let preamble = String(decoding: raw.bytes, as: UTF8.self)
            #expect(preamble.contains("resuming after delivery 0"), "the stream opened before the push: \(preamble)")
            let status = try await withHTTPClient { client in try await Self.alert(client, a).0 }
            #expect(status == 200)
            var text = ""
            _ = await eventually {
                text = String(decoding: raw.bytes.filter { $0 != 13 }, as: UTF8.self)
                return text.contains("event: relay")
            }
            try? await raw.channel.close()
            let delivery = try #require(text.range(of: "event: delivery"), "\(text)")
            let relay = try #require(text.range(of: "event: relay"), "\(text)")
            #expect(delivery.lowerBound < relay.lowerBound, "the delivery first, its relay answer after")
            let line = try #require(text[relay.upperBound...].split(separator: "\n").first { $0.hasPrefix("data: ") })
            let event = try JSONDecoder().decode(RelayEvent.self, from: Data(line.dropFirst(6).utf8))
            #expect(event.relay.error != nil && event.relay.attempts == 3 && event.relay.status == nil, "\(event)")
            let recorded = try await Self.answered(a, "service=apns", count: 1)
            #expect(event.deliveryId == recorded.first?.id)
        }
    }

    @Test("a full queue: pushes past the bound are answered, recorded with the relay error \"queue full\" and counted")
    func queueFull() async throws {
        // An upstream that accepts and never answers: a forward's attempt waits the hang bound
        // for its TLS handshake, so none ends while the pushes are sent, however slow they are.
        let silent = try await RelayShutdownTests.SilentServer()
        defer { Task { await silent.close() } }
        var configuration = F.configuration()
        configuration.relay = try Self.relaying(to: silent.port)
        // One forward in flight, one taken by the workers' loop, one waiting in the queue: of 8
        // pushes, 5 overflow.
        configuration.relay.queueLimit = 1
        configuration.relay.concurrency = 1
        configuration.relay.backoff = .seconds(10)
        // The silent upstream never finishes a TLS handshake, and the close waits for a connection
        // being opened: the connect bound, not the hang bound (the test never needs a connection).
        configuration.relay.connectTimeout = .seconds(5)
        try await withPushMockServer(configuration) { a in
            let statuses = try await withHTTPClient { client in
                var statuses: [Int] = []
                for _ in 0..<8 { statuses.append(try await Self.alert(client, a).0) }
                return statuses
            }
            #expect(statuses == Array(repeating: 200, count: 8), "every push answered")
            var full: [DeliveryResource] = []
            _ = try await eventually {
                full = try await a.deliveryList("service=apns").deliveries.filter { $0.relay?.error == "queue full" }
                return full.count >= 5
            }
            #expect(full.count == 5, "\(full.map(\.id))")
            #expect(full.allSatisfy { $0.relay?.attempts == 0 && $0.relay?.agrees == nil && $0.status == 200 })
            let metrics = await a.inspect("GET", "/metrics").text
            let dropped = metrics.split(separator: "\n").first { $0.hasPrefix("pushmock_relay_dropped_total ") }
            #expect(dropped.flatMap { Int($0.split(separator: " ").last ?? "") } == 5, "\(String(describing: dropped))")
        }
    }

    @Test("the queue is bounded by bytes too: 60 KB pushes past relay.queueBytes are recorded as \"queue full\", and what waits never passes it")
    func queueBytes() async throws {
        let silent = try await RelayShutdownTests.SilentServer()
        var configuration = try Self.relaying(to: silent.port)
        configuration.concurrency = 1
        configuration.backoff = .seconds(30)
        // The close waits for a connection being opened: not the hang bound.
        configuration.connectTimeout = .seconds(5)
        let store = InMemoryDeliveryStore()
        func big(_ index: Int) -> Delivery {
            var delivery = SampleDelivery.make(index)
            delivery.body = Array(repeating: UInt8(ascii: "x"), count: 60_000)
            return delivery
        }
        configuration.queueBytes = 3 * RelayJob.cost(of: big(0))
        let relay = try Relay(configuration, store: store, metrics: ServerMetrics(), logger: Logger(label: "test"))
        var ids: [UInt64] = []
        for index in 1...10 {
            let delivery = big(index)
            let id = store.record(delivery)
            ids.append(id)
            relay.submit(delivery.with(id: id), id: id)
            #expect(relay.queuedBytes <= configuration.queueBytes, "after \(index): \(relay.queuedBytes) bytes queued")
            #expect(relay.queued <= 3)
        }
        // At most two are taken by the workers (one forward in flight, one in hand): five or more overflow.
        var full = 0
        let recorded = try await eventually {
            full = 0
            for id in ids where try await store.delivery(id: id)?.relay?.error == "queue full" { full += 1 }
            return full >= 5
        }
        #expect(recorded, "\(full) pushes recorded as queue full")
        await relay.close(patience: .milliseconds(50))
        await silent.close()
    }

    @Test("passthrough: B's fault reaches the sender through A, both verdicts recorded; a dead upstream answers 502 with a reason")
    func passthrough() async throws {
        var upstream = F.configuration()
        upstream.pushPort = 0
        try await withPushMockServer(upstream) { b in
            var configuration = F.configuration()
            configuration.relay = try Self.relaying(to: b.pushPort, mode: .passthrough)
            try await withPushMockServer(configuration) { a in
                try await withHTTPClient { client in
                    #expect(
                        await b.inspect(
                            "PUT", "/api/v1/faults", body: #"{"id":"gone","match":{"service":"apns"},"reject":{"reason":"Unregistered"},"count":1}"#
                        ).status == 200)
                    let (status, body) = try await Self.alert(client, a)
                    #expect(status == 410 && body.contains("Unregistered"), "\(body)")
                    let recorded = try await Self.answered(a, "service=apns", count: 1)
                    #expect(recorded.first?.status == 200, "A's own verdict")
                    #expect(
                        recorded.first?.relay?.status == 410 && recorded.first?.relay?.reason == "Unregistered"
                            && recorded.first?.relay?.agrees == false)
                    #expect(try await Self.alert(client, a).0 == 200, "the fault fired once")
                }
            }
        }
        let down = try await TCPRelay.down()
        defer { Task { await down.close() } }
        var dead = F.configuration()
        dead.relay = try Self.relaying(to: down.port, mode: .passthrough)
        dead.relay.attempts = 1
        try await withPushMockServer(dead) { a in
            try await withHTTPClient { client in
                let (status, body) = try await Self.alert(client, a)
                #expect(status == 502 && body.contains("RelayUpstreamUnavailable"), "\(body)")
                #expect(try await Self.answered(a, "service=apns", count: 1).first?.relay?.error != nil)
            }
        }
    }

    @Test(
        "passthrough: a fault on the upstream's answer keeps B's real answer and adds the trouble (a delay, a GOAWAY after it); A's own verdict is untouched; refused where it cannot fire"
    )
    func upstreamFaults() async throws {
        let late =
            #"{"id":"late","target":"upstream","match":{"service":"apns"},"sequence":[{"delayMilliseconds":400},{"goAway":"Shutdown"},{"accept":true}]}"#
        var upstream = F.configuration()
        upstream.pushPort = 0
        try await withPushMockServer(upstream) { b in
            var configuration = F.configuration()
            configuration.relay = try Self.relaying(to: b.pushPort, mode: .passthrough)
            try await withPushMockServer(configuration) { a in
                try await withHTTPClient { client in
                    let reject = await a.inspect(
                        "PUT", "/api/v1/faults",
                        body: #"{"id":"x","target":"upstream","match":{"service":"apns"},"reject":{"reason":"BadDeviceToken"}}"#)
                    #expect(reject.status == 400 && reject.text.contains("not reject"), "\(reject.text)")
                    let anyService = await a.inspect("PUT", "/api/v1/faults", body: #"{"id":"y","target":"upstream","delayMilliseconds":1}"#)
                    #expect(anyService.status == 400 && anyService.text.contains("match.service"), "\(anyService.text)")
                    #expect(
                        await b.inspect(
                            "PUT", "/api/v1/faults", body: #"{"id":"gone","match":{"service":"apns"},"reject":{"reason":"Unregistered"},"count":1}"#
                        ).status == 200)
                    let added = await a.inspect("PUT", "/api/v1/faults", body: late)
                    #expect(added.status == 200 && added.text.contains(#""target":"upstream""#), "\(added.text)")

                    let started = ContinuousClock.now
                    let (status, body) = try await Self.alert(client, a)
                    #expect(status == 410 && body.contains("Unregistered"), "B's real answer, delayed: \(body)")
                    #expect(ContinuousClock.now - started >= .milliseconds(400), "it came after the fault's delay")
                    #expect(try await Self.alert(client, a).0 == 200, "B's answer, then a GOAWAY")
                    // AsyncHTTPClient may put the next request on the connection the GOAWAY closes
                    // before it reads the GOAWAY, and then fails it as cancelled instead of sending
                    // it again (async-http-client#505). Sent again, it takes a new connection; A
                    // records only what it answered (three pushes, below).
                    let next: Int
                    do {
                        next = try await Self.alert(client, a).0
                    } catch let error as HTTPClientError where error == .cancelled {
                        next = try await Self.alert(client, a).0
                    }
                    #expect(next == 200, "accepted as usual")

                    let recorded = try await Self.answered(a, "service=apns", count: 3).sorted { $0.id < $1.id }
                    #expect(recorded.map(\.status) == [200, 200, 200], "A's own verdicts")
                    #expect(recorded.map(\.fault) == ["late", "late", nil])
                    #expect(recorded.map { $0.relay?.status } == [410, 200, 200], "the upstream's answers as they came")
                    #expect(recorded[2].connectionId != recorded[1].connectionId, "the GOAWAY closed the connection: the next push came on a new one")
                    #expect(try await a.inspected("/api/v1/faults", as: FaultList.self).faults.isEmpty, "the sequence is used up")
                }
            }
        }
        // Without a passthrough relay the sender never gets the upstream's answer: refused.
        try await withPushMockServer(F.configuration()) { a in
            let refused = await a.inspect("PUT", "/api/v1/faults", body: late)
            #expect(refused.status == 400 && refused.text.contains("--relay-mode passthrough"), "\(refused.text)")
        }
        var configured = F.configuration()
        var rule = FaultRule(id: "late", match: .init(service: .apns), action: .delay(milliseconds: 10))
        rule.target = .upstream
        configured.faults = [rule]
        await #expect(throws: PushMockError.self) { try await withPushMockServer(configured) { _ in } }
    }

    @Test(
        "passthrough to an upstream that holds its answers: past the bound a sender gets 429 at once, a sender that leaves stops its forward, the rest get 502 at the deadline"
    )
    func passthroughBounds() async throws {
        var upstream = F.configuration()
        upstream.pushPort = 0
        // B opens every connection at its full stream limit: the senders leave while A's forwards
        // may not have reached B yet, and B's raise of the limit (APNs' SETTINGS after the first
        // valid token) would then reach A's client on a connection it has already made idle, which
        // trips an assertion in AsyncHTTPClient's pool in a debug build
        // (HTTPConnectionPool.scheduleIdleTimerForConnection: an idle timer already scheduled).
        upstream.apns.streamsBeforeAuthentication = 1_000  // (the default HTTP/2 limit, the raise's target)
        try await withPushMockServer(upstream) { b in
            var configuration = try await Self.relayingToHeld(b)
            configuration.relay.passthroughLimit = 2
            try await withPushMockServer(configuration) { a in
                let relay = try #require(a.relay)
                try await withHTTPClient { client in
                    // Two senders wait for the upstream; a third is answered at once, as APNs answers overload.
                    let waiting = (1...2).map { _ in Task { try await Self.alert(client, a) } }
                    #expect(await eventually { relay.awaitingUpstream == 2 }, "awaiting: \(relay.awaitingUpstream)")
                    let (status, body) = try await Self.alert(client, a)
                    #expect(status == 429 && body.contains("TooManyRequests"), "\(status) \(body)")
                    let noted = try await eventually {
                        try await a.deliveryList("service=apns").deliveries.contains { $0.relay?.error?.contains("relay.passthroughLimit") == true }
                    }
                    #expect(noted, "the refused push is recorded as not forwarded, naming the bound")
                    // The senders leave: their forwards stop, and their places are given back.
                    for task in waiting { task.cancel() }
                    #expect(await eventually { relay.awaitingUpstream == 0 }, "awaiting: \(relay.awaitingUpstream)")
                    let left = try await Self.answered(a, "service=apns", count: 3)
                    #expect(
                        left.filter { $0.relay?.error?.contains("the sender left") == true }.count == 2,
                        "\(left.map { String(describing: $0.relay) })")
                    for task in waiting { _ = await task.result }
                }
            }
            configuration.relay.passthroughLimit = 1_000
            configuration.relay.passthroughDeadline = .seconds(1)
            try await withPushMockServer(configuration) { a in
                try await withHTTPClient { client in
                    let (status, body) = try await Self.alert(client, a)
                    #expect(status == 502 && body.contains("RelayUpstreamUnavailable"), "\(body)")
                    let recorded = try await Self.answered(a, "service=apns", count: 1).first
                    #expect(recorded?.relay?.error?.contains("passthrough deadline") == true, "\(String(describing: recorded?.relay))")
                }
            }
        }
    }

    /// A's configuration, relaying to `b` in passthrough mode with a ten-minute deadline, once `b`
    /// holds every APNs answer for ten minutes: A's forwards wait for it.
    static func relayingToHeld(_ b: PushMockServer) async throws -> PushMockConfiguration {
        #expect(
            await b.inspect("PUT", "/api/v1/faults", body: #"{"id":"slow","match":{"service":"apns"},"delayMilliseconds":600000}"#).status == 200)
        var configuration = F.configuration()
        configuration.relay = try Self.relaying(to: b.pushPort, mode: .passthrough)
        configuration.relay.passthroughDeadline = .seconds(600)
        return configuration
    }

    /// `pushmock_requests_in_flight` of `server`'s `/metrics` once it is `value`, or as it is
    /// when the bound on a wait has passed.
    static func inFlight(_ server: PushMockServer, becomes value: Double) async -> Double? {
        var seen: Double?
        _ = await eventually {
            seen = await server.inspect("GET", "/metrics").text.split(separator: "\n").first { $0.hasPrefix("pushmock_requests_in_flight ") }
                .flatMap { Double($0.dropFirst("pushmock_requests_in_flight ".count)) }
            return seen == value
        }
        return seen
    }

    @Test("passthrough: a sender whose connection closes while its push waits for the upstream is no longer counted in flight")
    func passthroughConnectionGone() async throws {
        var upstream = F.configuration()
        upstream.pushPort = 0
        try await withPushMockServer(upstream) { b in
            try await withPushMockServer(try await Self.relayingToHeld(b)) { a in
                let relay = try #require(a.relay)
                let client = try await H2FrameClient.connect(port: a.pushPort, tls: true)
                client.send(
                    streamID: 1, path: "/3/device/\(S.deviceToken)", headers: S.alertHeaders(token: Self.senderToken),
                    body: S.alertBody)
                #expect(await eventually { relay.awaitingUpstream == 1 }, "awaiting: \(relay.awaitingUpstream)")
                // (Its place is taken before the answer leaves the responder, where it is counted.)
                let waiting = await Self.inFlight(a, becomes: 1)
                #expect(waiting == 1, "in flight while it waits: \(String(describing: waiting))")
                // The sender's connection closes: its answer is never sent, and it is not in flight.
                await client.close()
                #expect(await eventually { relay.awaitingUpstream == 0 }, "awaiting: \(relay.awaitingUpstream)")
                let left = await Self.inFlight(a, becomes: 0)
                #expect(left == 0, "in flight: \(String(describing: left))")
            }
        }
    }

    @Test("a queued forward keeps the request packed on its own: method, path, headers in order, body and verdict come back as they were")
    func jobPacking() {
        let headers = [
            HeaderField(name: "authorization", value: "bearer sender.jwt"), HeaderField(name: "apns-topic", value: "com.example.app"),
            HeaderField(name: "x-note", value: "grüße ✓"), HeaderField(name: "x-empty", value: ""),
        ]
        let body = Array(#"{"aps":{"alert":"Hi ✓"}}"#.utf8)
        var delivery = Delivery(
            receivedAt: 1_700_000_000_000, connectionID: 3, httpVersion: "2", service: .apns, method: "POST",
            path: "/3/device/\(String(repeating: "ab", count: 32))", headers: headers, body: body, outcome: .rejected, status: 400)
        delivery.reason = "BadDeviceToken"
        let job = RelayJob(deliveryID: 42, delivery: delivery, upstream: "https://localhost:2197")
        #expect(job.deliveryID == 42 && job.service == .apns && job.upstream == "https://localhost:2197")
        #expect(job.method == "POST" && job.path == delivery.path)
        #expect(job.headers.map(\.name) == headers.map(\.name) && job.headers.map(\.value) == headers.map(\.value))
        #expect(job.body == body)
        #expect(job.status == 400 && job.reason == "BadDeviceToken" && job.outcome == .rejected)
        let bare = RelayJob(
            deliveryID: 1,
            delivery: Delivery(
                receivedAt: 0, connectionID: 1, httpVersion: "2", service: .fcm, method: "GET", path: "/", headers: [], body: [],
                outcome: .accepted, status: 200),
            upstream: "https://fcm.example")
        #expect(bare.method == "GET" && bare.path == "/" && bare.headers.isEmpty && bare.body.isEmpty && bare.reason == nil)
    }

    @Test("relay configuration: the real services without credentials are refused; http upstreams are refused; the file's relay section is read")
    func configurationChecks() throws {
        var relay = RelayConfiguration()
        relay.apns = .init(url: "https://api.sandbox.push.apple.com", credential: nil)
        #expect(throws: PushMockError.self) { try relay.validate() }
        relay.apns = nil
        relay.fcm = .init(url: "http://fcm.googleapis.com", serviceAccount: .pem("{}"))
        #expect(throws: PushMockError.self) { try relay.validate() }

        var configuration = PushMockConfiguration()
        try configuration.load(
            contents: Array(
                #"{"relay":{"mode":"shadow","apns":{"url":"https://api.push.apple.com","key":"AuthKey.p8","keyId":"K","teamId":"T"},"fcm":{"url":"https://fcm.googleapis.com","serviceAccount":"sa.json"},"match":{"service":"apns","topic":"com.example.app"},"queueLimit":5,"connectTimeout":30}}"#
                    .utf8), path: "/etc/pushmock/pushmock.json")
        #expect(configuration.relay.mode == .shadow)
        #expect(configuration.relay.apns?.credential == .token(key: .file("/etc/pushmock/AuthKey.p8"), keyID: "K", teamID: "T"))
        #expect(configuration.relay.fcm?.serviceAccount == .file("/etc/pushmock/sa.json"))
        #expect(configuration.relay.match == .init(service: .apns, topic: "com.example.app"))
        #expect(configuration.relay.queueLimit == 5)
        #expect(configuration.relay.connectTimeout == .seconds(30))
        #expect(configuration.relay.summary?.contains("relayed pushes reach real devices") == true)
        var bad = PushMockConfiguration()
        #expect(throws: PushMockError.self) { try bad.load(contents: Array(#"{"relay":{"mode":"mirror"}}"#.utf8), path: "p.json") }
        #expect(throws: PushMockError.self) {
            try bad.load(contents: Array(#"{"relay":{"apns":{"url":"https://x","key":"k.p8"}}}"#.utf8), path: "p.json")
        }
        #expect(Relay.rewritingProject("/v1/projects/sender/messages:send", to: "relay") == "/v1/projects/relay/messages:send")
    }
}
