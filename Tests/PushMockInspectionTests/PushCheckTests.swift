import Crypto
import Foundation
import PushMockCore
import PushMockInspection
import PushMockServer
import PushMockTestSupport
import PushMockTesting
import Testing

/// `POST /api/v1/check` (check_payload) against `POST /api/v1/send` (send_test_push): the same push
/// judged in place and sent through the push port gets the same answer, and the check changes nothing.
@Suite("A checked push gets the push port's answer and changes nothing; a test push is sent through the push port")
struct PushCheckTests {
    static let deviceToken = String(repeating: "ab", count: 32)
    static let activityToken = String(repeating: "cd", count: 32)

    static func registrationToken() -> String {
        "pm0011223344556677:APA91b" + String(repeating: "Q", count: 120)
    }

    /// Pushes whose checked answer must equal the push port's: rejected, dropped and accepted ones.
    static func pushes(now: Int64) -> [(name: String, body: String)] {
        let apnsHeaders = #""apns-topic":"com.example.app","apns-push-type":"alert""#
        let liveHeaders = #""apns-topic":"com.example.app.push-type.liveactivity","apns-push-type":"liveactivity""#
        return [
            ("APNs accepted", #"{"service":"apns","token":"\#(deviceToken)","headers":{\#(apnsHeaders)},"payload":{"aps":{"alert":"hi"}}}"#),
            (
                "APNs BadPriority",
                #"{"service":"apns","token":"\#(deviceToken)","headers":{\#(apnsHeaders),"apns-priority":"7"},"payload":{"aps":{"alert":"hi"}}}"#
            ),
            ("APNs not JSON", #"{"service":"apns","token":"\#(deviceToken)","headers":{\#(apnsHeaders)},"body":"{aps"}"#),
            (
                "Live Activity timestamp in milliseconds",
                #"{"service":"apns","token":"\#(activityToken)","headers":{\#(liveHeaders)},"payload":{"aps":{"event":"update","timestamp":\#(now * 1000),"content-state":{}}}}"#
            ),
            (
                "FCM Live Activity with notification",
                #"{"service":"fcm","message":{"token":"\#(registrationToken())","notification":{"title":"t"},"apns":{"live_activity_token":"\#(activityToken)","payload":{"aps":{"event":"update","timestamp":\#(now),"content-state":{}}}}}}"#
            ),
            ("FCM accepted", #"{"service":"fcm","message":{"token":"\#(registrationToken())","data":{"k":"v"}}}"#),
            ("FCM unknown field", #"{"service":"fcm","message":{"token":"\#(registrationToken())","colour":"red"}}"#),
        ]
    }

    @Test("each push, checked and then sent: the same status, reason and outcome, the same body when rejected; checks are not recorded")
    func sameAnswerAsThePushPort() async throws {
        try await withPushMockServer(.testing()) { server in
            let now = Int64(Date().timeIntervalSince1970)
            for (name, body) in Self.pushes(now: now) {
                let before = try await server.inspected("/api/v1/deliveries?limit=1", as: DeliveryList.self).total
                let checkReply = await server.inspect("POST", "/api/v1/check", body: body)
                try #require(checkReply.status == 200, "\(name): \(checkReply.text)")
                let check = try checkReply.decode(CheckResult.self)
                let after = try await server.inspected("/api/v1/deliveries?limit=1", as: DeliveryList.self).total
                #expect(after == before, "\(name): a check is not recorded")
                #expect(!check.recorded && check.delivery.id == 0)

                let sendReply = await server.inspect("POST", "/api/v1/send", body: body)
                try #require(sendReply.status == 200, "\(name): \(sendReply.text)")
                let sent = try sendReply.decode(SendResult.self)
                let id = try #require(sent.deliveryId, "\(name): the send was recorded")
                let recorded = try await server.inspected("/api/v1/deliveries/\(id)", as: DeliveryResource.self)
                #expect(check.status == sent.status, "\(name): checked \(check.status) \(check.body), sent \(sent.status) \(sent.body)")
                #expect(check.accepted == (200..<300).contains(sent.status))
                #expect(check.delivery.reason == recorded.reason, "\(name)")
                #expect(check.delivery.outcome == recorded.outcome, "\(name)")
                #expect(check.delivery.deviceOutcome == recorded.deviceOutcome, "\(name)")
                if !check.accepted {
                    #expect(check.body == sent.body, "\(name): the same rejection body")
                }
            }
        }
    }

    @Test("a checked push fires no fault and starts no Live Activity, though the device's answer is the one a push would get")
    func checkChangesNothing() async throws {
        try await withPushMockServer(.testing()) { server in
            let now = Int64(Date().timeIntervalSince1970)
            #expect(
                await server.inspect(
                    "PUT", "/api/v1/faults", body: #"{"id":"once","match":{"service":"apns"},"reject":{"reason":"Unregistered"},"count":1}"#
                )
                .status == 200)
            let pushToStart = String(repeating: "5a", count: 40)
            #expect(await server.inspect("PUT", "/api/v1/devices/\(pushToStart)", body: #"{"liveActivity":"pushToStart"}"#).status == 200)
            let start =
                #"{"service":"apns","token":"\#(pushToStart)","headers":{"apns-topic":"com.example.app.push-type.liveactivity","apns-push-type":"liveactivity"},"payload":{"aps":{"event":"start","timestamp":\#(now),"content-state":{"score":"0-0"},"attributes-type":"MatchAttributes","attributes":{"home":"A"},"alert":{"title":"Kick-off","body":"A v B"},"input-push-token":1}}}"#
            let check = try await server.inspect("POST", "/api/v1/check", body: start).decode(CheckResult.self)
            #expect(check.status == 200 && check.delivery.fault == nil, "the fault did not fire: \(check.body)")
            #expect(check.delivery.deviceOutcome == "applied", "the device would start it: \(check.delivery.diagnostics)")
            #expect(check.delivery.issuedActivityToken != nil)
            let faults = try await server.inspected("/api/v1/faults", as: FaultList.self).faults
            #expect(faults.first?.hits == 0 && faults.first?.count == 1, "\(faults)")
            let activities = try await server.inspected("/api/v1/activities", as: ActivityList.self).activities
            #expect(activities.isEmpty, "no activity started: \(activities)")
            #expect(try await server.inspected("/api/v1/deliveries", as: DeliveryList.self).total == 0)
            // Sent, the same push meets the fault.
            let sent = try await server.inspect("POST", "/api/v1/send", body: start).decode(SendResult.self)
            #expect(sent.status == 410 && sent.reason == "Unregistered", "\(sent)")
        }
    }

    /// Mints a subscription through the inspection API: its id.
    static func mint(_ server: PushMockServer, _ body: String) async throws -> String {
        let reply = await server.inspect("POST", "/api/v1/web-push/subscriptions", body: body)
        try #require(reply.status == 201, "\(reply.text)")
        return try reply.decode(WebPushSubscriptionResource.self).id
    }

    @Test(
        "Web Push: each push, checked and then sent (sealed and VAPID signed for the push port): the same status, reason and outcome; the payload opened as the browser opens it"
    )
    func webPushSameAnswer() async throws {
        try await withPushMockServer(.testing()) { server in
            let mozilla = try await Self.mint(server, #"{"service":"mozilla"}"#)
            let key = P256.Signing.PrivateKey()
            let publicKey = Base64URL.encode(Array(key.publicKey.x963Representation))
            let apple = try await Self.mint(server, #"{"service":"apple","applicationServerKey":"\#(publicKey)"}"#)
            let expired = try await Self.mint(server, #"{"service":"google"}"#)
            #expect(await server.inspect("POST", "/api/v1/web-push/subscriptions/\(expired)/expire").status == 200)
            let pem = JSONText.escape(key.pemRepresentation)
            let cases: [(name: String, body: String, status: Int, reason: String?, outcome: Delivery.Outcome)] = [
                ("accepted", #"{"service":"webpush","subscription":"\#(mozilla)","payload":{"title":"Hi"}}"#, 201, nil, .accepted),
                ("text", #"{"service":"webpush","subscription":"\#(mozilla)","body":"plain words"}"#, 201, nil, .accepted),
                (
                    "InvalidUrgency", #"{"service":"webpush","subscription":"\#(mozilla)","headers":{"urgency":"soon"}}"#, 400, "InvalidUrgency",
                    .rejected
                ),
                (
                    "signed with the subscription's key", #"{"service":"webpush","subscription":"\#(apple)","vapidKey":"\#(pem)"}"#, 201, nil,
                    .accepted
                ),
                ("signed with another key", #"{"service":"webpush","subscription":"\#(apple)"}"#, 403, "keyMismatch", .rejected),
                (
                    "Declarative Web Push Safari refuses",
                    #"{"service":"webpush","subscription":"\#(apple)","vapidKey":"\#(pem)","payload":{"web_push":8030,"notification":{"title":"t"}}}"#,
                    201, "DeclarativeWebPushInvalid", .dropped
                ),
                ("expired", #"{"service":"webpush","subscription":"\#(expired)"}"#, 410, "ExpiredSubscription", .rejected),
            ]
            for (name, body, status, reason, outcome) in cases {
                let before = try await server.inspected("/api/v1/deliveries?limit=1", as: DeliveryList.self).total
                let checkReply = await server.inspect("POST", "/api/v1/check", body: body)
                try #require(checkReply.status == 200, "\(name): \(checkReply.text)")
                let check = try checkReply.decode(CheckResult.self)
                #expect(try await server.inspected("/api/v1/deliveries?limit=1", as: DeliveryList.self).total == before, "\(name): not recorded")
                #expect(check.status == status && check.delivery.reason == reason && check.delivery.outcome == outcome, "\(name): \(check)")

                let sent = try await server.inspect("POST", "/api/v1/send", body: body).decode(SendResult.self)
                let id = try #require(sent.deliveryId, "\(name): the send was recorded: \(sent)")
                let recorded = try await server.inspected("/api/v1/deliveries/\(id)", as: DeliveryResource.self)
                #expect(sent.status == status && recorded.reason == reason && recorded.outcome == outcome, "\(name): \(sent)")
                #expect(recorded.service == "webpush" && recorded.deviceToken == check.delivery.deviceToken, "\(name)")
                if status == 201 {
                    #expect(check.delivery.body == recorded.body, "\(name): the same plaintext, opened")
                }
            }
            let opened = try await server.inspected("/api/v1/deliveries?service=webpush&limit=100", as: DeliveryList.self).deliveries
            #expect(opened.contains { $0.body == #"{"title":"Hi"}"# }, "the payload as the service worker reads it")
            #expect(opened.contains { $0.body == "plain words" })
        }
    }

    @Test("Web Push: a send without a subscription mints one, signed with its own key; an unknown subscription is a 404")
    func webPushDefaults() async throws {
        try await withPushMockServer(.testing()) { server in
            let sent = try await server.inspect("POST", "/api/v1/send", body: #"{"service":"webpush","pushService":"apple"}"#).decode(SendResult.self)
            #expect(sent.status == 201 && sent.outcome == .accepted, "\(sent)")
            let id = try #require(sent.deliveryId)
            let recorded = try await server.inspected("/api/v1/deliveries/\(id)", as: DeliveryResource.self)
            #expect(recorded.body == #"{"title":"PushMock","body":"A test push"}"#, "the sample notification")
            #expect(recorded.headers.contains { $0 == ["ttl", "60"] }, "\(recorded.headers)")
            let minted = try await server.inspected(
                "/api/v1/web-push/subscriptions/\(try #require(recorded.deviceToken))", as: WebPushSubscriptionResource.self)
            #expect(minted.service == "apple" && minted.applicationServerKey != nil, "minted on Apple's service with the key it was signed with")

            for path in ["/api/v1/check", "/api/v1/send"] {
                let unknown = await server.inspect("POST", path, body: #"{"service":"webpush","subscription":"nosuchsubscription"}"#)
                #expect(unknown.status == 404 && unknown.text.contains("nosuchsubscription"), "\(path): \(unknown.text)")
            }
            let big = String(repeating: "x", count: 5000)
            let tooBig = await server.inspect("POST", "/api/v1/send", body: #"{"service":"webpush","body":"\#(big)"}"#)
            #expect(tooBig.status == 400 && tooBig.text.contains("sealed"), "\(tooBig.text)")
            let kept = try await server.inspected("/api/v1/web-push/subscriptions", as: WebPushSubscriptionList.self).subscriptions
            #expect(kept.map(\.id) == [minted.id], "the subscription minted for the push that could not be sent is not kept")
        }
    }

    @Test("bad bodies are a 400 naming the field; a send fills in what a sender always has")
    func badInputAndDefaults() async throws {
        try await withPushMockServer(.testing()) { server in
            for (body, fragment) in [
                ("[]", "expected an object"),
                (#"{"token":"x"}"#, "service"),
                (#"{"service":"gcm"}"#, "service"),
                (#"{"service":"webpush"}"#, "subscription"),
                (#"{"service":"webpush","subscription":"x","pushService":"opera"}"#, "pushService"),
                (#"{"service":"webpush","subscription":"x","pushService":"google"}"#, "pushService"),
                (#"{"service":"webpush","subscription":"x","vapidKey":"not a key"}"#, "vapidKey"),
                (#"{"service":"webpush","subscription":"x","payload":{},"body":"y"}"#, "not both"),
                (#"{"service":"webpush","subscription":"x","payload":"hi"}"#, "payload"),
                (#"{"service":"apns"}"#, "payload"),
                (#"{"service":"apns","payload":[1]}"#, "payload"),
                (#"{"service":"apns","payload":{},"colour":1}"#, "colour"),
                (#"{"service":"apns","payload":{},"environment":"staging"}"#, "environment"),
                (#"{"service":"apns","payload":{},"headers":{"apns-topic":7}}"#, "apns-topic"),
                (#"{"service":"apns","payload":{},"headers":{"x":"a\r\nb: c"}}"#, "CR"),
                (#"{"service":"fcm","message":"hi"}"#, "message"),
                (#"{"service":"apns","payload":{},"token":"a/b"}"#, "token"),
                (#"{"service":"fcm","message":{},"project":"p q"}"#, "project"),
                ("not json", "JSON"),
            ] {
                let reply = await server.inspect("POST", "/api/v1/check", body: body)
                #expect(reply.status == 400 && reply.text.contains(fragment), "\(body): \(reply.status) \(reply.text)")
            }
            // A check takes the headers as given (Apple wants apns-topic); a send fills it in.
            let missingTopic = #"{"service":"apns","headers":{"apns-push-type":"alert"},"payload":{"aps":{"alert":"x"}}}"#
            let checked = try await server.inspect("POST", "/api/v1/check", body: missingTopic).decode(CheckResult.self)
            #expect(checked.status == 400 && checked.delivery.reason == "MissingTopic", "\(checked.body)")
            let filled = try await server.inspect("POST", "/api/v1/send", body: missingTopic).decode(SendResult.self)
            #expect(filled.status == 200, "\(filled)")
            // A header name HTTP cannot carry: checked in place like any unknown header; a send
            // says it was not sent (the HTTP client would trap on it), and the server goes on.
            let oddName = #"{"service":"apns","headers":{"}O8W$é":"x","apns-topic":"com.example.app"},"payload":{"aps":{"alert":"x"}}}"#
            let oddCheck = await server.inspect("POST", "/api/v1/check", body: oddName)
            #expect(oddCheck.status == 200, "\(oddCheck.text)")
            let oddSend = try await server.inspect("POST", "/api/v1/send", body: oddName).decode(SendResult.self)
            #expect(oddSend.status == 0 && oddSend.body.contains("not sent") && oddSend.deliveryId == nil, "\(oddSend)")
            let apns = try await server.inspect("POST", "/api/v1/send", body: #"{"service":"apns"}"#).decode(SendResult.self)
            #expect(apns.status == 200 && apns.outcome == .accepted, "\(apns)")
            let fcm = try await server.inspect("POST", "/api/v1/send", body: #"{"service":"fcm"}"#).decode(SendResult.self)
            #expect(fcm.status == 200 && fcm.body.contains("projects/"), "\(fcm)")
            let recorded = try await server.inspected("/api/v1/deliveries?service=fcm", as: DeliveryList.self)
            #expect(recorded.total == 1)
        }
    }
}
