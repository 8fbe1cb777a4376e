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
import _CryptoExtras

@Suite("FCM and OAuth over TLS, HTTP/1.1 and HTTP/2, end to end")
struct FCMEndToEndTests {
    @Test("a token exchange then sends over HTTP/1.1 and HTTP/2, recorded with project and target", arguments: [true, false])
    func sendBothProtocols(http1Only: Bool) async throws {
        try await withPushMockServer(FCMTestServer.configuration()) { server in
            try await withHTTPClient(http1Only: http1Only) { client in
                let bearer = try await FCMTestServer.accessToken(client, port: server.pushPort)
                #expect(bearer.hasPrefix("ya29.pmc.") && bearer.utf8.count < 80, "a configured account's token is compact: \(bearer)")
                let (status, json, response) = try await FCMTestServer.send(
                    client, port: server.pushPort, bearer: bearer,
                    body: #"{"message":{"token":"\#(FCMTestServer.token)","notification":{"title":"Hi"}}}"#)
                #expect(status == 200)
                #expect(response.version == (http1Only ? .http1_1 : .http2))
                let name = try #require(json["name"] as? String)
                #expect(name.wholeMatch(of: /projects\/[a-z0-9-]+\/messages\/0:\d{16}%([0-9a-f]{8})\1/) != nil, "FCM's id shape: \(name)")
                #expect(name.hasPrefix("projects/\(FCMTestServer.project)/messages/0:"))
                #expect(response.headers.first(name: "content-type") == "application/json; charset=UTF-8")
                let (dryStatus, dry, _) = try await FCMTestServer.send(
                    client, port: server.pushPort, bearer: bearer, body: #"{"validate_only":true,"message":{"topic":"news","data":{"a":"b"}}}"#)
                #expect(dryStatus == 200)
                #expect(dry["name"] as? String == "projects/\(FCMTestServer.project)/messages/fake_message_id")
            }
            let deliveries = try await server.deliveryList("service=fcm&project=\(FCMTestServer.project)").deliveries
            #expect(deliveries.count == 2)
            #expect(deliveries.last?.deviceToken == FCMTestServer.token)
            #expect(deliveries.first?.topic == "news")
            #expect(deliveries.first?.diagnostics.contains("validate_only: checked, not delivered") == true)
            #expect(deliveries.last?.identity == FCMTestServer.account["client_email"])
            #expect(try await server.deliveryList("service=oauth").total == 1)
        }
    }

    @Test("authentication failures: missing, garbage, another project; a self-signed JWT is accepted")
    func authentication() async throws {
        var configuration = FCMTestServer.configuration()
        configuration.fcm.serviceAccounts.append(.pem(Self.otherAccount))
        try await withPushMockServer(configuration) { server in
            try await withHTTPClient { client in
                let body = #"{"message":{"token":"\#(FCMTestServer.token)","data":{"a":"b"}}}"#
                let (missing, missingJSON, missingResponse) = try await FCMTestServer.send(client, port: server.pushPort, bearer: nil, body: body)
                #expect(missing == 401)
                let error = missingJSON["error"] as? [String: Any]
                #expect(error?["status"] as? String == "UNAUTHENTICATED")
                #expect(((error?["details"] as? [[String: Any]])?.first?["reason"] as? String) == "CREDENTIALS_MISSING")
                #expect(missingResponse.headers.first(name: "www-authenticate") != nil)
                let (garbage, garbageJSON, _) = try await FCMTestServer.send(client, port: server.pushPort, bearer: "ya29.nonsense", body: body)
                #expect(garbage == 401)
                #expect(
                    ((garbageJSON["error"] as? [String: Any])?["details"] as? [[String: Any]])?.first?["reason"] as? String
                        == "ACCESS_TOKEN_TYPE_UNSUPPORTED")
                let bearer = try await FCMTestServer.accessToken(client, port: server.pushPort)
                let (other, otherJSON, _) = try await FCMTestServer.send(
                    client, port: server.pushPort, project: "other-project", bearer: bearer, body: body)
                #expect(other == 403)
                #expect(
                    ((otherJSON["error"] as? [String: Any])?["message"] as? String)?.hasPrefix("Permission 'cloudmessaging.messages.create' denied")
                        == true)
                let selfSigned = FCMTestServer.assertion(audience: "https://fcm.googleapis.com/", scope: nil)
                let (signed, _, _) = try await FCMTestServer.send(client, port: server.pushPort, bearer: selfSigned, body: body)
                #expect(signed == 200)
            }
        }
    }

    @Test("a connection's credential is checked on each of its messages: its project, another token, its expiry")
    func cachedCredentialPerMessage() async throws {
        let clock = PushMockClock.manual(startingAt: Int64(Date().timeIntervalSince1970) * 1000)
        var configuration = APNSTestServer.configuration(clock: clock)
        configuration.fcm.serviceAccounts.append(.pem(Self.otherAccount))
        try await withPushMockServer(configuration) { server in
            try await withHTTPClient { client in
                let body = #"{"message":{"token":"\#(FCMTestServer.token)","data":{"a":"b"}}}"#
                func reason(_ json: [String: Any]) -> String? {
                    ((json["error"] as? [String: Any])?["details"] as? [[String: Any]])?.first?["reason"] as? String
                }
                let bearer = try await FCMTestServer.accessToken(client, port: server.pushPort)
                let (first, _, _) = try await FCMTestServer.send(client, port: server.pushPort, bearer: bearer, body: body)
                #expect(first == 200)
                let (other, otherJSON, _) = try await FCMTestServer.send(
                    client, port: server.pushPort, project: "other-project", bearer: bearer, body: body)
                #expect(other == 403)
                #expect(reason(otherJSON) == "IAM_PERMISSION_DENIED")
                let (garbage, garbageJSON, _) = try await FCMTestServer.send(client, port: server.pushPort, bearer: "ya29.nonsense", body: body)
                #expect(garbage == 401)
                #expect(reason(garbageJSON) == "ACCESS_TOKEN_TYPE_UNSUPPORTED")
                let (again, _, _) = try await FCMTestServer.send(client, port: server.pushPort, bearer: bearer, body: body)
                #expect(again == 200)
                clock.advance(byMilliseconds: 2 * 3600 * 1000)
                let (expired, expiredJSON, _) = try await FCMTestServer.send(client, port: server.pushPort, bearer: bearer, body: body)
                #expect(expired == 401)
                #expect(reason(expiredJSON) == "ACCESS_TOKEN_EXPIRED")
            }
            let deliveries = try await server.deliveryList("service=fcm").deliveries
            #expect(deliveries.map(\.status).sorted() == [200, 200, 401, 401, 403])
            #expect(deliveries.filter { $0.status == 200 }.allSatisfy { $0.identity == FCMTestServer.account["client_email"] })
            // One connection carried them all, so each message after the first met its cached credential.
            #expect(Set(deliveries.map(\.connectionId)).count == 1)
        }
    }

    @Test("a fault sequence's steps set their own Retry-After; a faulted 429 or 503 without one carries 60, and APNs only what a step names")
    func faultRetryAfter() async throws {
        try await withPushMockServer(FCMTestServer.configuration()) { server in
            let put = await server.inspect(
                "PUT", "/api/v1/faults",
                body: #"""
                    {"id":"fcm-retry","match":{"service":"fcm"},"sequence":[{"reject":{"reason":"UNAVAILABLE","retryAfter":2}},
                    {"reject":{"reason":"QUOTA_EXCEEDED"}},{"reject":{"status":500,"reason":"INTERNAL","retryAfter":0}},{"accept":true}]}
                    """#)
            #expect(put.status == 200, "\(put.text)")
            #expect(try put.decode(FaultResource.self).sequence?.map { $0.reject?.retryAfter } == [2, nil, 0, nil], "\(put.text)")
            let apns = await server.inspect(
                "PUT", "/api/v1/faults",
                body: #"""
                    {"id":"apns-retry","match":{"service":"apns"},
                    "sequence":[{"reject":{"reason":"TooManyRequests","retryAfter":5}},{"reject":{"reason":"TooManyRequests"}}]}
                    """#)
            #expect(apns.status == 200, "\(apns.text)")
            let refused = await server.inspect(
                "PUT", "/api/v1/faults", body: #"{"match":{"service":"fcm"},"reject":{"reason":"UNAVAILABLE","retryAfter":-1}}"#)
            #expect(refused.status == 400 && refused.text.contains("retryAfter"), "\(refused.text)")
            try await withHTTPClient { client in
                let bearer = try await FCMTestServer.accessToken(client, port: server.pushPort)
                var answers: [String] = []
                for _ in 0..<4 {
                    let (status, _, response) = try await FCMTestServer.send(
                        client, port: server.pushPort, bearer: bearer, body: #"{"message":{"token":"\#(FCMTestServer.token)"}}"#)
                    answers.append("\(status) \(response.headers["retry-after"].joined(separator: ","))")
                }
                #expect(answers == ["503 2", "429 60", "500 0", "200 "])
                var apnsAnswers: [String] = []
                for _ in 0..<2 {
                    let (response, _) = try await client.send(
                        "https://localhost:\(server.pushPort)/3/device/\(APNSTestServer.deviceToken)", method: .POST,
                        headers: APNSTestServer.alertHeaders(token: APNSTestServer.token(issuedAt: Int64(Date().timeIntervalSince1970))),
                        body: APNSTestServer.alertBody)
                    apnsAnswers.append("\(response.status.code) \(response.headers["retry-after"].joined(separator: ","))")
                }
                #expect(apnsAnswers == ["429 5", "429 "])
            }
        }
    }

    @Test("registry states, faults and Google's HTML 404s")
    func registryFaultsAndPages() async throws {
        try await withPushMockServer(FCMTestServer.configuration()) { server in
            let gone = "Z29uZQ:APA91b" + String(repeating: "G", count: 100)
            let foreign = "Zm9yZWlnbg:APA91b" + String(repeating: "F", count: 100)
            server.devices.set(DeviceRecord(state: .unregistered(sinceMilliseconds: 1)), for: gone)
            server.devices.set(DeviceRecord(fcmProject: "someone-else"), for: foreign)
            server.faults.add(
                FaultRule(
                    id: "quota", match: .init(service: .fcm, project: FCMTestServer.project), action: .reject(status: 429, reason: "QUOTA_EXCEEDED"),
                    count: 1)
            )
            try await withHTTPClient { client in
                let bearer = try await FCMTestServer.accessToken(client, port: server.pushPort)
                let (quota, quotaJSON, quotaResponse) = try await FCMTestServer.send(
                    client, port: server.pushPort, bearer: bearer, body: #"{"message":{"token":"\#(FCMTestServer.token)"}}"#)
                #expect(quota == 429)
                #expect(quotaResponse.headers.first(name: "retry-after") != nil)
                #expect(((quotaJSON["error"] as? [String: Any])?["status"] as? String) == "RESOURCE_EXHAUSTED")
                let (unregistered, json, _) = try await FCMTestServer.send(
                    client, port: server.pushPort, bearer: bearer, body: #"{"message":{"token":"\#(gone)"}}"#)
                #expect(unregistered == 404)
                #expect((((json["error"] as? [String: Any])?["details"] as? [[String: Any]])?.first?["errorCode"] as? String) == "UNREGISTERED")
                let (mismatch, _, _) = try await FCMTestServer.send(
                    client, port: server.pushPort, bearer: bearer, body: #"{"message":{"token":"\#(foreign)"}}"#)
                #expect(mismatch == 403)
                for path in ["/batch", "/fcm/send", "/v1/projects/\(FCMTestServer.project)/messages:sendAll"] {
                    let (response, body) = try await client.send("https://localhost:\(server.pushPort)\(path)", method: .POST, body: Array("{}".utf8))
                    #expect(response.status == .notFound)
                    #expect(response.headers.first(name: "content-type")?.hasPrefix("text/html") == true)
                    #expect(String(decoding: body, as: UTF8.self).contains("Error 404 (Not Found)!!1"))
                }
            }
            #expect(try await server.deliveryList("reason=QUOTA_EXCEEDED").deliveries.first?.fault == "quota")
        }
    }

    static let otherAccount: String = {
        let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
        return """
            {"type":"service_account","project_id":"other-project","private_key_id":"ffff","private_key":\(String(reflecting: key.pkcs8PEMRepresentation)),"client_email":"x@other-project.iam.gserviceaccount.com","token_uri":"https://oauth2.googleapis.com/token"}
            """
    }()
}
