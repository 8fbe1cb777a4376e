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
    static let material = TestTLS.material
    static let account = try! JSONSerialization.jsonObject(with: Data(material.fcmServiceAccountJSON.utf8)) as! [String: String]
    static let project = account["project_id"]!
    static let key = try! _RSA.Signing.PrivateKey(pemRepresentation: account["private_key"]!)
    static let token = "dGVzdC1pbnN0YW5jZS0wMDAx:APA91b" + String(repeating: "Fk3", count: 40)

    static func configuration() -> PushMockConfiguration {
        APNSTestServer.configuration(clock: .system)
    }

    static func assertion(
        audience: String = OAuthTokenEndpoint.googleAudience, scope: String? = "https://www.googleapis.com/auth/firebase.messaging"
    ) -> String {
        try! OAuthAssertion.sign(
            key: key, keyID: account["private_key_id"]!, issuer: account["client_email"]!, audience: audience, scope: scope,
            issuedAt: Int64(Date().timeIntervalSince1970))
    }

    /// Exchanges an assertion for an access token.
    static func accessToken(_ client: HTTPClient, port: Int) async throws -> String {
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion())"
        let (response, body) = try await client.send(
            "https://localhost:\(port)/token", method: .POST, headers: [("content-type", "application/x-www-form-urlencoded")], body: Array(form.utf8)
        )
        #expect(response.status == .ok)
        let json = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        return try #require(json?["access_token"] as? String)
    }

    static func send(
        _ client: HTTPClient, port: Int, project: String = project, bearer: String?, body: String
    ) async throws -> (Int, [String: Any], HTTPClientResponse) {
        var headers = [("content-type", "application/json")]
        if let bearer { headers.append(("authorization", "Bearer \(bearer)")) }
        let (response, bytes) = try await client.send(
            "https://localhost:\(port)/v1/projects/\(project)/messages:send", method: .POST, headers: headers, body: Array(body.utf8))
        return (Int(response.status.code), (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:], response)
    }

    @Test("a token exchange then sends over HTTP/1.1 and HTTP/2, recorded with project and target", arguments: [true, false])
    func sendBothProtocols(http1Only: Bool) async throws {
        try await withPushMockServer(Self.configuration()) { server in
            try await withHTTPClient(http1Only: http1Only) { client in
                let bearer = try await Self.accessToken(client, port: server.pushPort)
                #expect(bearer.hasPrefix("ya29.pmc.") && bearer.utf8.count < 80, "a configured account's token is compact: \(bearer)")
                let (status, json, response) = try await Self.send(
                    client, port: server.pushPort, bearer: bearer, body: #"{"message":{"token":"\#(Self.token)","notification":{"title":"Hi"}}}"#)
                #expect(status == 200)
                #expect(response.version == (http1Only ? .http1_1 : .http2))
                let name = try #require(json["name"] as? String)
                #expect(name.wholeMatch(of: /projects\/[a-z0-9-]+\/messages\/0:\d{16}%([0-9a-f]{8})\1/) != nil, "FCM's id shape: \(name)")
                #expect(name.hasPrefix("projects/\(Self.project)/messages/0:"))
                #expect(response.headers.first(name: "content-type") == "application/json; charset=UTF-8")
                let (dryStatus, dry, _) = try await Self.send(
                    client, port: server.pushPort, bearer: bearer, body: #"{"validate_only":true,"message":{"topic":"news","data":{"a":"b"}}}"#)
                #expect(dryStatus == 200)
                #expect(dry["name"] as? String == "projects/\(Self.project)/messages/fake_message_id")
            }
            let deliveries = try await server.deliveryList("service=fcm&project=\(Self.project)").deliveries
            #expect(deliveries.count == 2)
            #expect(deliveries.last?.deviceToken == Self.token)
            #expect(deliveries.first?.topic == "news")
            #expect(deliveries.first?.diagnostics.contains("validate_only: checked, not delivered") == true)
            #expect(deliveries.last?.identity == Self.account["client_email"])
            #expect(try await server.deliveryList("service=oauth").total == 1)
        }
    }

    @Test("authentication failures: missing, garbage, another project; a self-signed JWT is accepted")
    func authentication() async throws {
        var configuration = Self.configuration()
        configuration.fcm.serviceAccounts.append(.pem(Self.otherAccount))
        try await withPushMockServer(configuration) { server in
            try await withHTTPClient { client in
                let body = #"{"message":{"token":"\#(Self.token)","data":{"a":"b"}}}"#
                let (missing, missingJSON, missingResponse) = try await Self.send(client, port: server.pushPort, bearer: nil, body: body)
                #expect(missing == 401)
                let error = missingJSON["error"] as? [String: Any]
                #expect(error?["status"] as? String == "UNAUTHENTICATED")
                #expect(((error?["details"] as? [[String: Any]])?.first?["reason"] as? String) == "CREDENTIALS_MISSING")
                #expect(missingResponse.headers.first(name: "www-authenticate") != nil)
                let (garbage, garbageJSON, _) = try await Self.send(client, port: server.pushPort, bearer: "ya29.nonsense", body: body)
                #expect(garbage == 401)
                #expect(
                    ((garbageJSON["error"] as? [String: Any])?["details"] as? [[String: Any]])?.first?["reason"] as? String
                        == "ACCESS_TOKEN_TYPE_UNSUPPORTED")
                let bearer = try await Self.accessToken(client, port: server.pushPort)
                let (other, otherJSON, _) = try await Self.send(client, port: server.pushPort, project: "other-project", bearer: bearer, body: body)
                #expect(other == 403)
                #expect(
                    ((otherJSON["error"] as? [String: Any])?["message"] as? String)?.hasPrefix("Permission 'cloudmessaging.messages.create' denied")
                        == true)
                let selfSigned = Self.assertion(audience: "https://fcm.googleapis.com/", scope: nil)
                let (signed, _, _) = try await Self.send(client, port: server.pushPort, bearer: selfSigned, body: body)
                #expect(signed == 200)
            }
        }
    }

    @Test("registry states, faults and Google's HTML 404s")
    func registryFaultsAndPages() async throws {
        try await withPushMockServer(Self.configuration()) { server in
            let gone = "Z29uZQ:APA91b" + String(repeating: "G", count: 100)
            let foreign = "Zm9yZWlnbg:APA91b" + String(repeating: "F", count: 100)
            server.devices.set(DeviceRecord(state: .unregistered(sinceMilliseconds: 1)), for: gone)
            server.devices.set(DeviceRecord(fcmProject: "someone-else"), for: foreign)
            server.faults.add(
                FaultRule(
                    id: "quota", match: .init(service: .fcm, project: Self.project), action: .reject(status: 429, reason: "QUOTA_EXCEEDED"), count: 1)
            )
            try await withHTTPClient { client in
                let bearer = try await Self.accessToken(client, port: server.pushPort)
                let (quota, quotaJSON, quotaResponse) = try await Self.send(
                    client, port: server.pushPort, bearer: bearer, body: #"{"message":{"token":"\#(Self.token)"}}"#)
                #expect(quota == 429)
                #expect(quotaResponse.headers.first(name: "retry-after") != nil)
                #expect(((quotaJSON["error"] as? [String: Any])?["status"] as? String) == "RESOURCE_EXHAUSTED")
                let (unregistered, json, _) = try await Self.send(
                    client, port: server.pushPort, bearer: bearer, body: #"{"message":{"token":"\#(gone)"}}"#)
                #expect(unregistered == 404)
                #expect((((json["error"] as? [String: Any])?["details"] as? [[String: Any]])?.first?["errorCode"] as? String) == "UNREGISTERED")
                let (mismatch, _, _) = try await Self.send(
                    client, port: server.pushPort, bearer: bearer, body: #"{"message":{"token":"\#(foreign)"}}"#)
                #expect(mismatch == 403)
                for path in ["/batch", "/fcm/send", "/v1/projects/\(Self.project)/messages:sendAll"] {
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
