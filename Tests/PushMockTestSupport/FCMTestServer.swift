package import AsyncHTTPClient
import Foundation
import NIOHTTP1
import PushMockCore
package import PushMockServer
import Testing
package import _CryptoExtras

/// FCM and OAuth against a test server: the test service account, a registration token, an
/// access token from the push port's /token, and a send.
package enum FCMTestServer {
    package static let material = TestTLS.material
    package static let account = try! JSONSerialization.jsonObject(with: Data(material.fcmServiceAccountJSON.utf8)) as! [String: String]
    package static let project = account["project_id"]!
    package static let key = try! _RSA.Signing.PrivateKey(pemRepresentation: account["private_key"]!)
    package static let token = "dGVzdC1pbnN0YW5jZS0wMDAx:APA91b" + String(repeating: "Fk3", count: 40)

    package static func configuration() -> PushMockConfiguration {
        APNSTestServer.configuration(clock: .system)
    }

    package static func assertion(
        audience: String = OAuthTokenEndpoint.googleAudience, scope: String? = "https://www.googleapis.com/auth/firebase.messaging"
    ) -> String {
        try! OAuthAssertion.sign(
            key: key, keyID: account["private_key_id"]!, issuer: account["client_email"]!, audience: audience, scope: scope,
            issuedAt: Int64(Date().timeIntervalSince1970))
    }

    /// Exchanges an assertion for an access token.
    package static func accessToken(_ client: HTTPClient, port: Int) async throws -> String {
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion())"
        let (response, body) = try await client.send(
            "https://localhost:\(port)/token", method: .POST, headers: [("content-type", "application/x-www-form-urlencoded")], body: Array(form.utf8)
        )
        #expect(response.status == .ok)
        let json = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        return try #require(json?["access_token"] as? String)
    }

    package static func send(
        _ client: HTTPClient, port: Int, project: String = project, bearer: String?, body: String
    ) async throws -> (Int, [String: Any], HTTPClientResponse) {
        var headers = [("content-type", "application/json")]
        if let bearer { headers.append(("authorization", "Bearer \(bearer)")) }
        let (response, bytes) = try await client.send(
            "https://localhost:\(port)/v1/projects/\(project)/messages:send", method: .POST, headers: headers, body: Array(body.utf8))
        return (Int(response.status.code), (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:], response)
    }
}
