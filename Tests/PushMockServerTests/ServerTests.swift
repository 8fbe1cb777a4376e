import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import PushMockCore
import PushMockServer
import PushMockTestSupport
import PushMockTesting
import Testing

@Suite("pushmock serve, in-process")
struct ServerTests {
    static let material = TestTLS.material

    /// PushMockTesting's configuration (the one factory), with a cleartext port and the server's
    /// own idle timeout.
    static func configuration(mode: PushMockConfiguration.Mode = .push) -> PushMockConfiguration {
        var configuration = PushMockConfiguration.testing()
        configuration.idleTimeoutSeconds = PushMockConfiguration().idleTimeoutSeconds
        configuration.cleartextPort = 0
        configuration.mode = mode
        return configuration
    }

    static func withClient<T>(_ body: (HTTPClient) async throws -> T) async throws -> T {
        try await withHTTPClient(body)
    }

    static func send(
        _ client: HTTPClient, _ url: String, method: HTTPMethod = .GET, headers: [(String, String)] = [], body: String? = nil
    ) async throws -> (HTTPClientResponse, String) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await client.execute(request, timeout: .seconds(60))  // a hang, not a slow machine
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return (response, String(buffer: bytes))
    }

    @Test("/livez answers 200 over HTTP/2 with TLS, and over the cleartext port")
    func livez() async throws {
        try await withPushMockServer(Self.configuration()) { server in
            try await Self.withClient { client in
                let (response, body) = try await Self.send(client, "https://localhost:\(server.pushPort)/livez")
                #expect(response.status == .ok)
                #expect(response.version == .http2)
                #expect(body == #"{"status":"ok"}"#)
                let (cleartext, _) = try await Self.send(client, "http://127.0.0.1:\(server.cleartextPort!)/livez")
                #expect(cleartext.status == .ok)
            }
        }
    }

    @Test("any other path gets a 404 JSON body naming the request")
    func unknownPath() async throws {
        try await withPushMockServer(Self.configuration()) { server in
            try await Self.withClient { client in
                let (response, body) = try await Self.send(client, "https://127.0.0.1:\(server.pushPort)/nowhere", method: .POST, body: "{}")
                #expect(response.status == .notFound)
                #expect(response.headers.first(name: "content-type") == "application/json")
                let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String]
                #expect(json?["reason"] == "BadPath")
                #expect(json?["description"]?.contains("POST /nowhere") == true)
            }
        }
    }

    @Test("accept-all mode answers 200 with the apns-id echoed exactly, or a new one")
    func acceptAll() async throws {
        try await withPushMockServer(Self.configuration(mode: .acceptAll)) { server in
            try await Self.withClient { client in
                let url = "https://localhost:\(server.pushPort)/3/device/\(String(repeating: "ab", count: 32))"
                let sent = "123e4567-e89b-12d3-a456-426614174000"
                let (echoed, body) = try await Self.send(client, url, method: .POST, headers: [("apns-id", sent)], body: "{}")
                #expect(echoed.status == .ok)
                #expect(echoed.headers.first(name: "apns-id") == sent)
                #expect(body.isEmpty)
                let (generated, _) = try await Self.send(client, url, method: .POST, body: "{}")
                let id = try #require(generated.headers.first(name: "apns-id"))
                #expect(UUID(uuidString: id) != nil)
            }
        }
    }

    @Test("a request body over the transport cap gets 413 on a non-push path, and the connection goes on")
    func bodyOverCap() async throws {
        var configuration = Self.configuration()
        configuration.maxRequestBodySize = 4096
        try await withPushMockServer(configuration) { server in
            try await Self.withClient { client in
                let (response, body) = try await Self.send(
                    client, "https://localhost:\(server.pushPort)/upload", method: .POST, body: String(repeating: "x", count: 5000))
                #expect(response.status == .payloadTooLarge)
                #expect(body.contains(#""reason":"PayloadTooLarge""#))
                let (next, _) = try await Self.send(client, "https://localhost:\(server.pushPort)/livez")
                #expect(next.status == .ok)
            }
        }
    }

    @Test("missing TLS files fail fast with a hint")
    func missingCertificate() async throws {
        var configuration = PushMockConfiguration()
        configuration.pushPort = 0
        configuration.tls = .files(certificateChain: "/nonexistent/server.pem", privateKey: "/nonexistent/server-key.pem")
        let error = await #expect(throws: PushMockError.self) {
            _ = try await PushMockServer.start(configuration: configuration)
        }
        #expect(error?.code == .tlsMaterialMissing)
        #expect(error?.message.contains("pushmock certs generate") == true)
    }

    @Test("a port already in use fails fast")
    func portInUse() async throws {
        try await withPushMockServer(Self.configuration()) { server in
            var configuration = Self.configuration()
            configuration.pushPort = server.pushPort
            configuration.cleartextPort = nil
            let error = await #expect(throws: PushMockError.self) {
                _ = try await PushMockServer.start(configuration: configuration)
            }
            #expect(error?.code == .listenFailed)
        }
    }

    @Test("generated dev material is written as Certs/ expects it, and the server certificate chains to the CA")
    func generatedCertificates() async throws {
        let directory = URL(fileURLWithPath: TestScratch.path("certs"))
        defer { try? FileManager.default.removeItem(at: directory) }
        let material = try DevCertificates.generate(tokenURI: "https://localhost:9999/token")
        let written = try material.write(to: directory).map(\.lastPathComponent).sorted()
        #expect(
            written == [
                "AuthKey_PUSHMOCK01.p8", "apns-client-key.pem", "apns-client.pem", "authorized-user.json", "ca-key.pem", "ca.pem",
                "fcm-service-account.json", "server-key.pem", "server.pem",
            ])
        let users = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("authorized-user.json"))) as? [String: String])
        #expect(users["type"] == "authorized_user")
        #expect(users["client_id"] == OAuthUserClient.sample.clientID)
        #expect(users["quota_project_id"] == DevCertificates.sampleFCMProjectID)
        #expect(OAuthUserClient.isRefreshTokenShaped(users["refresh_token"] ?? ""))
        #expect(
            try String(contentsOf: directory.appendingPathComponent("authorized-user.json"), encoding: .utf8)
                == String(contentsOfFile: "Certs/authorized-user.json", encoding: .utf8),
            "Certs/authorized-user.json is what pushmock certs writes")
        let p8 = try String(contentsOf: directory.appendingPathComponent("AuthKey_PUSHMOCK01.p8"), encoding: .utf8)
        #expect(p8.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let account =
            try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("fcm-service-account.json")))
            as? [String: String]
        #expect(account?["type"] == "service_account")
        #expect(account?["token_uri"] == "https://localhost:9999/token")
        #expect(account?["private_key"]?.hasPrefix("-----BEGIN PRIVATE KEY-----") == true)

        var configuration = Self.configuration()
        configuration.tls = .files(
            certificateChain: directory.appendingPathComponent("server.pem").path, privateKey: directory.appendingPathComponent("server-key.pem").path
        )
        try await withPushMockServer(configuration) { server in
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(directory.appendingPathComponent("ca.pem").path)
            var clientConfiguration = HTTPClient.Configuration()
            clientConfiguration.tlsConfiguration = tls
            clientConfiguration.timeout = .init(connect: .seconds(60))
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
            defer { _ = client.shutdown() }
            for host in ["localhost", "127.0.0.1"] {
                let response = try await client.execute(HTTPClientRequest(url: "https://\(host):\(server.pushPort)/livez"), timeout: .seconds(60))
                #expect(response.status == .ok)
            }
        }
    }
}
