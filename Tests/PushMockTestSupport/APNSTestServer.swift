package import AsyncHTTPClient
package import Crypto
import Foundation
import NIOCore
package import NIOHPACK
import NIOHTTP1
package import NIOHTTP2
import NIOSSL
import PushMockCore
package import PushMockInspection
package import PushMockServer
import PushMockTesting
import Testing

/// A PushMock configured with freshly minted test material, and ways to talk APNs to it.
package enum APNSTestServer {
    package static let material = TestTLS.material
    package static let sampleKey = try! P256.Signing.PrivateKey(pemRepresentation: material.apnsAuthKeyP8)
    package static let secondKey = P256.Signing.PrivateKey()
    package static let productionKey = P256.Signing.PrivateKey()
    package static let deviceToken = String(repeating: "ab", count: 32)
    package static let start: Int64 = 1_767_225_600_000  // 2026-01-01T00:00:00Z

    /// PushMockTesting's configuration (the one factory), with two more APNs keys: a second
    /// development key and a production-only one.
    package static func configuration(clock: PushMockClock = .manual(startingAt: start)) -> PushMockConfiguration {
        var configuration = PushMockConfiguration.testing(clock: clock)
        configuration.apns.keys += [
            .init(keyID: "SECONDKEY1", teamID: DevCertificates.sampleAPNSTeamID, source: .pem(secondKey.pemRepresentation)),
            .init(
                keyID: "PRODKEY001", teamID: DevCertificates.sampleAPNSTeamID, source: .pem(productionKey.publicKey.pemRepresentation),
                scope: .production),
        ]
        return configuration
    }

    package static func token(keyID: String = DevCertificates.sampleAPNSKeyID, key: P256.Signing.PrivateKey = sampleKey, issuedAt: Int64) -> String {
        try! ProviderToken.sign(keyID: keyID, teamID: DevCertificates.sampleAPNSTeamID, issuedAt: issuedAt, key: key)
    }

    /// APNs headers for an alert to the sample app.
    package static func alertHeaders(token: String?, topic: String = "com.example.app", extra: [(String, String)] = []) -> [(String, String)] {
        var headers: [(String, String)] = [("apns-topic", topic), ("apns-push-type", "alert")]
        if let token { headers.append(("authorization", "bearer \(token)")) }
        return headers + extra
    }

    package static let alertBody = Array(#"{"aps":{"alert":{"title":"Hi","body":"There"}}}"#.utf8)

    /// An alert to `token` on `server`'s push port, signed as issued at `issuedAt`; its status.
    package static func push(_ client: HTTPClient, _ server: PushMockServer, token: String = deviceToken, issuedAt: Int64) async throws -> Int {
        let (response, _) = try await client.send(
            "https://localhost:\(server.pushPort)/3/device/\(token)", method: .POST,
            headers: alertHeaders(token: Self.token(issuedAt: issuedAt)), body: alertBody
        )
        return Int(response.status.code)
    }

    /// An AsyncHTTPClient presenting a client certificate.
    package static func withCertificateClient<T>(certificatePEM: String, keyPEM: String, _ body: (HTTPClient) async throws -> T) async throws -> T {
        var tls = try TestTLS.clientConfiguration(alpn: [])
        tls.certificateChain = try NIOSSLCertificate.fromPEMBytes(Array(certificatePEM.utf8)).map { .certificate($0) }
        tls.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem))
        return try await withHTTPClient(tls: tls, body)
    }
}

extension H2FrameClient {
    /// The JSON body of a stream's response, once the stream has ended (its HEADERS can arrive
    /// before its DATA: reading after `status(of:)` alone raced on a loaded machine).
    package func json(of streamID: Int) async throws -> [String: Any] {
        _ = try await completedStream(streamID)
        return (try? JSONSerialization.jsonObject(with: Data(body(of: streamID)))) as? [String: Any] ?? [:]
    }

    /// The response header fields of a stream as sent, with how each was indexed (after
    /// `status(of:)` returned).
    package func responseFields(of streamID: Int) -> [(name: String, value: String, indexable: HPACKIndexing)] {
        for frame in frames where frame.streamID == .init(streamID) {
            if case .headers(let headers) = frame.payload {
                return headers.headers.map { ($0.name, $0.value, $0.indexable) }
            }
        }
        return []
    }

    /// The response headers of a stream (after `status(of:)` returned).
    package func responseHeaders(of streamID: Int) -> [String: String] {
        for frame in frames where frame.streamID == .init(streamID) {
            if case .headers(let headers) = frame.payload {
                return Dictionary(headers.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
            }
        }
        return [:]
    }
}

extension PushMockServer {
    /// `GET /api/v1/deliveries?<query>` in-process; it must answer 200.
    package func deliveryList(_ query: String = "") async throws -> DeliveryList {
        let reply = await inspect("GET", "/api/v1/deliveries" + (query.isEmpty ? "" : "?\(query)"))
        try #require(reply.status == 200, "GET /api/v1/deliveries?\(query): \(reply.status) \(reply.text)")
        return try reply.decode(DeliveryList.self)
    }

    /// `GET <target>` in-process, which must answer 200, decoded as `type`.
    package func inspected<Value: Decodable>(_ target: String, as type: Value.Type = Value.self) async throws -> Value {
        let reply = await inspect("GET", target)
        try #require(reply.status == 200, "GET \(target): \(reply.status) \(reply.text)")
        return try reply.decode(Value.self)
    }
}

extension HTTP2Frame {
    /// The SETTINGS_MAX_CONCURRENT_STREAMS a SETTINGS frame carries, if it does.
    package var maxConcurrentStreamsSetting: Int? {
        guard case .settings(.settings(let values)) = payload else { return nil }
        return values.last { $0.parameter == .maxConcurrentStreams }?.value
    }
}
