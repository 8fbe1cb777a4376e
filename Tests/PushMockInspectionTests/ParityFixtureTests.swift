import PushMockCore
import Testing

@testable import PushMockInspection

/// The parity records' arithmetic and the fixtures `pushmock parity export` writes: what differs
/// from one run to the next is replaced, credentials never appear, the same pair is one fixture.
@Suite("Parity: records merge and read as a sentence; fixtures are normalised and named by their content")
struct ParityFixtureTests {
    static let token = String(repeating: "ab", count: 32)

    static func apnsDelivery(
        token: String = token, apnsID: String = "8F3A2D6C-1111-2222-3333-444455556666", timestamp: Int64 = 1_790_000_000,
        status: Int = 400, reason: String? = "BadDeviceToken", outcome: Delivery.Outcome = .rejected, relay: RelayResult? = nil
    ) -> Delivery {
        var delivery = Delivery(
            receivedAt: 1_790_000_000_000, connectionID: 1, httpVersion: "2", service: .apns, environment: "sandbox", method: "POST",
            path: "/3/device/\(token)",
            headers: [
                HeaderField(name: "authorization", value: "bearer eyJhbGciOiJFUzI1NiJ9.secret.signature"),
                HeaderField(name: "apns-topic", value: "com.example.app.push-type.liveactivity"),
                HeaderField(name: "apns-push-type", value: "liveactivity"),
                HeaderField(name: "apns-id", value: apnsID),
                HeaderField(name: "apns-expiration", value: "1790003600"),
                HeaderField(name: "content-type", value: "application/json"),
                HeaderField(name: "user-agent", value: "aioapns"),
            ],
            body: Array(#"{"aps":{"event":"update","timestamp":\#(timestamp),"content-state":{"note":"for \#(token)"}}}"#.utf8), bodyIsJSON: true,
            topic: "com.example.app.push-type.liveactivity", deviceToken: token, apnsID: apnsID, outcome: outcome, status: status, reason: reason)
        delivery.relay =
            relay ?? RelayResult(upstream: "https://api.sandbox.push.apple.com", status: 400, reason: "BadDeviceToken", attempts: 1, agrees: true)
        return delivery
    }

    @Test("an APNs pair: token, id and times are placeholders, credentials and other fields are left out, the reasons are both answers")
    func apnsNormalised() throws {
        let fixture = try #require(ParityFixture(Self.apnsDelivery()))
        #expect(fixture.service == "apns" && fixture.upstream == "Apple (sandbox)" && fixture.agrees)
        #expect(fixture.request.path == "/3/device/{device}")
        #expect(fixture.request.headers.map(\.name) == ["apns-topic", "apns-push-type", "apns-id", "apns-expiration", "content-type"])
        #expect(fixture.request.headers.first { $0.name == "apns-id" }?.value == "{id}")
        #expect(fixture.request.headers.first { $0.name == "apns-expiration" }?.value == "{time}")
        #expect(fixture.request.body["aps"]?["timestamp"] == .string("{time}"))
        #expect(fixture.request.body["aps"]?["content-state"]?["note"] == .string("for {device}"))
        #expect(fixture.pushmock.status == 400 && fixture.pushmock.reason == "BadDeviceToken")
        #expect(fixture.upstreamAnswer.status == 400 && fixture.upstreamAnswer.reason == "BadDeviceToken")
        let text = ParityFixture.canonical(fixture)
        #expect(!text.contains(Self.token) && !text.contains("secret") && !text.contains("8F3A2D6C") && !text.contains("1790003600"))
        #expect(fixture.name.hasPrefix("apns-BadDeviceToken-agrees-") && fixture.name.count == "apns-BadDeviceToken-agrees-".count + 8)
    }

    @Test("the same request to another device, with another id and time, is the same fixture; another answer is another")
    func sameContentSameName() throws {
        let first = try #require(ParityFixture(Self.apnsDelivery()))
        let second = try #require(
            ParityFixture(
                Self.apnsDelivery(token: String(repeating: "cd", count: 32), apnsID: "00000000-0000-0000-0000-000000000001", timestamp: 1_800_000_000)
            ))
        #expect(first == second)
        let disagreeing = try #require(
            ParityFixture(
                Self.apnsDelivery(
                    relay: RelayResult(upstream: "https://api.sandbox.push.apple.com", status: 410, reason: "Unregistered", agrees: false))))
        #expect(disagreeing.name != first.name && disagreeing.name.hasPrefix("apns-BadDeviceToken-disagrees-"))
        // A push a device would drop is a success to the service.
        let dropped = try #require(
            ParityFixture(
                Self.apnsDelivery(
                    status: 200, reason: "LiveActivityStale", outcome: .dropped,
                    relay: RelayResult(upstream: "https://api.push.apple.com", status: 200, agrees: true))))
        #expect(dropped.pushmock.reason == nil && dropped.upstream == "Apple (production)" && dropped.name.hasPrefix("apns-success-agrees-"))
    }

    @Test("an FCM pair: the project and the registration token are placeholders; the access token is left out")
    func fcmNormalised() throws {
        let token = "fcm-token:" + String(repeating: "x", count: 140)
        var delivery = Delivery(
            receivedAt: 0, connectionID: 1, httpVersion: "2", service: .fcm, method: "POST", path: "/v1/projects/my-project-123/messages:send",
            headers: [HeaderField(name: "authorization", value: "Bearer ya29.secret"), HeaderField(name: "content-type", value: "application/json")],
            body: Array(#"{"message":{"token":"\#(token)","data":{"project":"my-project-123"}}}"#.utf8), bodyIsJSON: true, deviceToken: token,
            outcome: .rejected, status: 404, reason: "UNREGISTERED", project: "my-project-123")
        delivery.relay = RelayResult(upstream: "https://fcm.googleapis.com", status: 404, reason: "UNREGISTERED", agrees: true)
        let fixture = try #require(ParityFixture(delivery))
        #expect(fixture.upstream == "Google" && fixture.request.path == "/v1/projects/{project}/messages:send")
        #expect(fixture.request.body["message"]?["token"] == .string("{device}"))
        #expect(fixture.request.body["message"]?["data"]?["project"] == .string("{project}"))
        #expect(fixture.request.headers.map(\.name) == ["content-type"])
        #expect(fixture.name.hasPrefix("fcm-UNREGISTERED-agrees-"))
    }

    @Test("no fixture without an upstream answer: not forwarded, no answer, or another service")
    func onlyAnswered() {
        var notForwarded = Self.apnsDelivery()
        notForwarded.relay = nil
        #expect(ParityFixture(notForwarded) == nil)
        #expect(ParityFixture(Self.apnsDelivery(relay: RelayResult(upstream: "https://x", error: "connect failed", attempts: 3))) == nil)
    }

    @Test("records count, merge across runs and instances, bound what they keep, and read as a sentence")
    func records() {
        var record = ParityRecord(service: "apns", reason: "BadDeviceToken", status: 400, upstream: "Apple (sandbox)")
        #expect(record.summary == "BadDeviceToken: no answer yet from Apple (sandbox)")
        record.count(agrees: true, upstreamStatus: 400, upstreamReason: "BadDeviceToken", delivery: 1, at: 1_796_300_000_000)
        record.count(agrees: true, upstreamStatus: 400, upstreamReason: "BadDeviceToken", delivery: 2, at: 1_796_300_000_000)
        #expect(record.summary == "BadDeviceToken: agreed with Apple (sandbox) 2 times, last on 2026-12-03")
        var other = ParityRecord(service: "apns", reason: "BadDeviceToken", status: 400, upstream: "Apple (sandbox)")
        other.count(agrees: false, upstreamStatus: 410, upstreamReason: "Unregistered", delivery: 9, at: 1_796_400_000_000)
        let merged = ParityRecord.merged([record, other, ParityRecord(service: "fcm", reason: nil, status: 200, upstream: "Google")])
        #expect(merged.count == 2)
        let apns = merged[0]
        #expect(apns.agreed == 2 && apns.disagreed == 1 && apns.lastDisagreement == 9 && apns.upstreamAnswers == ["410 Unregistered": 1])
        #expect(
            apns.summary
                == "BadDeviceToken: agreed with Apple (sandbox) 2 times, last on 2026-12-03; disagreed once, last on 2026-12-04 (it answered 410 Unregistered ×1)"
        )
        #expect(merged[1].summary == "success: no answer yet from Google")
        for index in 0..<(ParityRecord.maximumAnswers + 5) {
            other.count(agrees: false, upstreamStatus: 400, upstreamReason: "Reason\(index)", delivery: 10, at: 0)
        }
        #expect(other.upstreamAnswers.count == ParityRecord.maximumAnswers + 1 && other.upstreamAnswers["other"] == 6)
    }

    @Test("upstream names: Apple's and Google's hosts by name, another upstream by host and port")
    func upstreamNames() {
        #expect(ParityRecord.upstreamName("https://api.push.apple.com") == "Apple (production)")
        #expect(ParityRecord.upstreamName("https://api.sandbox.push.apple.com:443/") == "Apple (sandbox)")
        #expect(ParityRecord.upstreamName("https://api.development.push.apple.com") == "Apple (sandbox)")
        #expect(ParityRecord.upstreamName("https://fcm.googleapis.com") == "Google")
        #expect(ParityRecord.upstreamName("https://127.0.0.1:3197") == "127.0.0.1:3197")
    }
}
