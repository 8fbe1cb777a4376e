import AsyncHTTPClient
import Crypto
import Foundation
import NIOHTTP1
import NIOSSL
import PushMockCore
import PushMockTestSupport
import PushMockTesting
import Testing
import _CryptoExtras

@testable import PushMockServer

/// Running with no checkout: development credentials made once in a data directory, reused, and
/// served over the inspection API with the port the server really listens on.
@Suite("Development credentials without a checkout: the data directory and GET /api/v1/credentials")
struct DevMaterialTests {
    static func temporaryDirectory() -> String {
        TestScratch.path("data")
    }

    @Test("where the material is looked for: --data-dir, then Certs/ in the working directory, then the user's data directory")
    func resolution() {
        let none: (String) -> Bool = { _ in false }
        let checkout: (String) -> Bool = { $0 == "Certs/server.pem" }
        #expect(
            DevMaterialDirectory.resolve(dataDirectory: "/srv/pm", environment: [:], fileExists: checkout)
                == .init(path: "/srv/pm/certs", isDataDirectory: true))
        #expect(
            DevMaterialDirectory.resolve(dataDirectory: nil, environment: ["PUSHMOCK_DATA_DIR": "/data"], fileExists: checkout)
                == .init(path: "/data/certs", isDataDirectory: true))
        #expect(
            DevMaterialDirectory.resolve(dataDirectory: nil, environment: ["HOME": "/home/u"], fileExists: checkout)
                == .init(path: "Certs", isDataDirectory: false))
        #expect(
            DevMaterialDirectory.resolve(dataDirectory: nil, environment: ["HOME": "/home/u"], fileExists: none)
                == .init(path: "/home/u/.local/share/pushmock/certs", isDataDirectory: true))
        #expect(
            DevMaterialDirectory.resolve(dataDirectory: nil, environment: ["HOME": "/home/u", "XDG_DATA_HOME": "/xdg"], fileExists: none)
                == .init(path: "/xdg/pushmock/certs", isDataDirectory: true))
        #expect(
            DevMaterialDirectory.resolve(dataDirectory: nil, environment: ["HOME": "/home/u", "XDG_DATA_HOME": "relative"], fileExists: none).path
                == "/home/u/.local/share/pushmock/certs",
            "XDG_DATA_HOME must be absolute to count")
    }

    @Test("made once, reused with the same CA, and a checkout's Certs/ is never written")
    func createdOnceAndReused() throws {
        let root = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let material = DevMaterialDirectory.resolve(dataDirectory: root, environment: [:])
        #expect(try material.ensure() == true)
        let ca = try String(contentsOfFile: material.file("ca.pem"), encoding: .utf8)
        #expect(try material.ensure() == false)
        #expect(try String(contentsOfFile: material.file("ca.pem"), encoding: .utf8) == ca, "the second start keeps the CA")
        var configuration = PushMockConfiguration()
        material.apply(to: &configuration)
        guard case .files(let chain, let key) = configuration.tls else {
            Issue.record("tls not from files")
            return
        }
        #expect(chain == material.file("server.pem") && key == material.file("server-key.pem"))
        guard case .file(let p8) = configuration.apns.keys.first?.source else {
            Issue.record("sample key not a file")
            return
        }
        #expect(p8 == material.file("AuthKey_PUSHMOCK01.p8"))
        #expect(configuration.developmentMaterialFolder == material.path)
        try material.pointServiceAccount(atPort: 40_001)
        let account =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: material.file("fcm-service-account.json"))))
            as? [String: Any]
        #expect(account?["token_uri"] as? String == "https://localhost:40001/token")
        #expect(account?["private_key"] as? String != nil, "the rest of the file is kept")

        let checkout = DevMaterialDirectory(path: root + "/empty-checkout", isDataDirectory: false)
        #expect(throws: PushMockError.self) { try checkout.ensure() }
        #expect(!FileManager.default.fileExists(atPath: checkout.path))
    }

    @Test("eight servers starting at once on a fresh data directory: one creates the material, the others find it made")
    func concurrentFirstStarts() async throws {
        let root = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let material = DevMaterialDirectory.resolve(dataDirectory: root, environment: [:])
        let created = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 { group.addTask { try material.ensure() } }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        // One creator: without the lock each start that found the folder empty wrote its own
        // material over the others'.
        #expect(created == 1)
        #expect(DevMaterialDirectory.required.allSatisfy { FileManager.default.fileExists(atPath: material.file($0)) })
    }

    @Test("--cert-host: the server certificate is issued again by the same CA to name more hosts, and a client reaches the server by that name")
    func certificateHosts() async throws {
        let root = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let material = DevMaterialDirectory.resolve(dataDirectory: root, environment: [:])
        try material.ensure()
        let ca = try String(contentsOfFile: material.file("ca.pem"), encoding: .utf8)
        let hosts = [try CertificateHost("PushMock"), try CertificateHost("10.0.0.5"), try CertificateHost("[fd00::5]")]
        #expect(hosts.map(\.name) == ["pushmock", "10.0.0.5", "fd00::5"])
        for bad in ["push mock", "-pushmock", "push_mock", "", "a." + String(repeating: "b", count: 64), "*.com", "pushmock:2197"] {
            #expect(throws: PushMockError.self, "\(bad)") { try CertificateHost(bad) }
        }
        #expect(try CertificateHost("*.push.test").name == "*.push.test")
        #expect(hosts[0].address == nil)
        #expect(hosts[1].address == [10, 0, 0, 5])
        #expect(hosts[2].address == [0xFD, 0] + [UInt8](repeating: 0, count: 13) + [5])
        #expect(try CertificateHost("::1").address == [UInt8](repeating: 0, count: 15) + [1])
        #expect(try CertificateHost("::ffff:10.0.0.5").address == [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF, 10, 0, 0, 5])
        #expect(try CertificateHost("2001:db8:0:0:1:0:0:1").address == [0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1])
        for bad in ["1::2::3", "12345::1", "1:2:3:4:5:6:7", ":::"] {
            #expect(throws: PushMockError.self, "\(bad)") { try CertificateHost(bad) }
        }

        /// nil when a TLS client that trusts the folder's CA accepts the server as `name`, else why not.
        func reach(_ name: String, server: PushMockServer) async -> String? {
            await TLSHandshake.failure(port: server.pushPort, serverName: name, caFile: material.file("ca.pem"))
        }
        func serve(_ body: (PushMockServer) async throws -> Void) async throws {
            var configuration = PushMockConfiguration()
            material.apply(to: &configuration)
            configuration.pushPort = 0
            configuration.inspectionPort = nil
            try await withPushMockServer(configuration, body)
        }
        try await serve { server in
            let local = await reach("localhost", server: server)
            #expect(local == nil, "\(local ?? "")")
            let refused = await reach("pushmock", server: server)
            #expect(
                refused?.contains("does not pass for hostname pushmock") == true, "the name is not on the certificate yet: \(refused ?? "reached")")
        }
        #expect(try material.cover(hosts) == hosts.map(\.name))
        #expect(try material.cover(hosts) == [], "covered: not issued again")
        #expect(try material.cover([hosts[0]]) == [])
        #expect(try String(contentsOfFile: material.file("ca.pem"), encoding: .utf8) == ca, "the same CA")
        let pem = try String(contentsOfFile: material.file("server.pem"), encoding: .utf8)
        #expect(DevCertificates.serverCertificate(pem, covers: hosts))
        #expect(DevCertificates.serverCertificate(pem, covers: [try CertificateHost("other")]) == false)
        func mode(_ path: String) throws -> Int {
            try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber).intValue
        }
        #expect(try mode(material.file("server-key.pem")) == 0o600)
        try await serve { server in
            let named = await reach("pushmock", server: server)
            #expect(named == nil, "\(named ?? "")")
            let local = await reach("localhost", server: server)
            #expect(local == nil, "the default names stay: \(local ?? "")")
        }

        let checkout = DevMaterialDirectory(path: material.path, isDataDirectory: false)
        let refused = #expect(throws: PushMockError.self) { try checkout.cover([try CertificateHost("elsewhere")]) }
        #expect(refused?.description.contains("--data-dir") == true, "\(String(describing: refused))")
        #expect(try String(contentsOfFile: material.file("server.pem"), encoding: .utf8) == pem, "a checkout's certificate is not rewritten")
    }

    @Test("a data directory's certificate from an older PushMock, without the Web Push hosts, is issued again by the same CA with them")
    func olderCertificateBroughtUp() async throws {
        let root = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let material = DevMaterialDirectory.resolve(dataDirectory: root, environment: [:])
        try material.ensure()
        let webPush = ["web.push.apple.com", "updates.push.services.mozilla.com"]
        #expect(webPush.allSatisfy(DevCertificates.serverNames.contains))
        // What an older PushMock issued: the names before the Web Push hosts.
        let read = { (name: String) in try String(contentsOfFile: material.file(name), encoding: .utf8) }
        let older = try DevCertificates(
            caCertificatePEM: read("ca.pem"), caPrivateKeyPEM: read("ca-key.pem"), serverCertificatePEM: "", serverPrivateKeyPEM: "",
            apnsAuthKeyP8: "", fcmServiceAccountJSON: ""
        ).issueServerCertificate(names: DevCertificates.serverNames.filter { !webPush.contains($0) }, extraHosts: [], now: Date())
        try older.certificatePEM.write(toFile: material.file("server.pem"), atomically: true, encoding: .utf8)
        try older.privateKeyPEM.write(toFile: material.file("server-key.pem"), atomically: true, encoding: .utf8)
        let ca = try read("ca.pem")

        #expect(try material.cover([]) == webPush)
        #expect(try material.cover([]) == [], "brought up once")
        #expect(try read("ca.pem") == ca, "the same CA")
        #expect(DevCertificates.serverCertificate(try read("server.pem"), covers: try webPush.map(CertificateHost.init)))
        var configuration = PushMockConfiguration()
        material.apply(to: &configuration)
        configuration.pushPort = 0
        configuration.inspectionPort = nil
        try await withPushMockServer(configuration) { server in
            for name in webPush {
                let failure = await TLSHandshake.failure(port: server.pushPort, serverName: name, caFile: material.file("ca.pem"))
                #expect(failure == nil, "\(name): \(failure ?? "")")
            }
        }
        // A checkout's certificate is never rewritten, and lacking only built-in names is not refused.
        let checkout = DevMaterialDirectory(path: root, isDataDirectory: false)
        try older.certificatePEM.write(toFile: material.file("server.pem"), atomically: true, encoding: .utf8)
        #expect(try checkout.cover([]) == [])
        #expect(try read("server.pem") == older.certificatePEM)
    }

    @Test(
        "keys and credentials are the owner's alone (0600, the folder 0700), older looser modes are fixed with a notice, and root refuses a folder others can write"
    )
    func privateModes() throws {
        let root = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let material = DevMaterialDirectory.resolve(dataDirectory: root, environment: [:])
        try material.ensure()
        func mode(_ path: String) throws -> Int {
            try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber).intValue
        }
        #expect(try mode(material.path) == 0o700)
        for name in DevCertificates.FileName.privateFiles {
            #expect(try mode(material.file(name)) == 0o600, "\(name)")
        }
        #expect(try mode(material.file(DevCertificates.FileName.caCertificate)) == 0o644, "a certificate is public")
        #expect(try material.secure(runningAsRoot: false).isEmpty, "nothing to fix")
        try material.pointServiceAccount(atPort: 40_002)
        #expect(try mode(material.file(DevCertificates.FileName.fcmServiceAccount)) == 0o600, "rewritten, still the owner's")

        // What an older PushMock left: world-readable keys in a 755 folder.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: material.file(DevCertificates.FileName.caPrivateKey))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: material.path)
        let notices = try material.secure(runningAsRoot: false)
        #expect(notices.count == 2, "\(notices)")
        #expect(notices.contains { $0.contains("ca-key.pem was mode 644; it is 600 now") }, "\(notices)")
        #expect(try mode(material.file(DevCertificates.FileName.caPrivateKey)) == 0o600)
        #expect(try mode(material.path) == 0o700)

        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: root)
        let refused = #expect(throws: PushMockError.self) { try material.secure(runningAsRoot: true) }
        #expect(refused?.description.contains("can be written by other users") == true, "\(String(describing: refused))")
        #expect(try material.secure(runningAsRoot: false).isEmpty, "not root: the parent is the user's own business")
        let checkout = DevMaterialDirectory(path: root, isDataDirectory: false)
        #expect(try checkout.secure(runningAsRoot: true).isEmpty, "a checkout's Certs/ is left as it is")
    }

    @Test("a server on a free port serves its credentials, the service account naming that port, and each file")
    func served() async throws {
        let root = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let material = DevMaterialDirectory.resolve(dataDirectory: root, environment: [:])
        try material.ensure()
        var configuration = PushMockConfiguration()
        material.apply(to: &configuration)
        configuration.pushPort = 0
        configuration.inspectionPort = 0
        try await withPushMockServer(configuration) { server in
            #expect(server.pushPort != 2197)
            let reply = await server.inspect("GET", "/api/v1/credentials")
            #expect(reply.status == 200)
            let json = reply.json
            #expect(json["pushUrl"] as? String == "https://localhost:\(server.pushPort)")
            let account = try #require(json["serviceAccount"] as? [String: Any])
            #expect(account["token_uri"] as? String == "https://localhost:\(server.pushPort)/token")
            #expect(account["project_id"] as? String == DevCertificates.sampleFCMProjectID)
            #expect(json["caPem"] as? String == (try String(contentsOfFile: material.file("ca.pem"), encoding: .utf8)))
            #expect((json["apns"] as? [String: Any])?["keyId"] as? String == DevCertificates.sampleAPNSKeyID)
            #expect(((json["samples"] as? [String: Any])?["fid"] as? String)?.count == 22)
            for (file, type) in [
                ("ca.pem", "application/x-pem-file"), ("apns-key.p8", "application/x-pem-file"), ("service-account.json", "application/json"),
                ("authorized-user.json", "application/json"),
            ] {
                let reply = await server.inspect("GET", "/api/v1/credentials/\(file)")
                #expect(reply.status == 200, "\(file)")
                #expect(reply.header("content-type") == type, "\(file)")
            }
            #expect(await server.inspect("GET", "/api/v1/credentials/service-account.json").text.contains("localhost:\(server.pushPort)/token"))
            #expect(await server.inspect("GET", "/api/v1/credentials/ca-key.pem").status == 404)
            // Tokens minted for helpers whose language has no JWT library.
            let jwt = try await server.inspected("/api/v1/credentials/apns-token", as: IssuedToken.self).token
            let parsed = try ProviderToken.parse(Substring(jwt))
            #expect(parsed.keyID == DevCertificates.sampleAPNSKeyID && parsed.teamID == DevCertificates.sampleAPNSTeamID)
            let p8 = try String(contentsOfFile: material.file("AuthKey_PUSHMOCK01.p8"), encoding: .utf8)
            try parsed.verify(with: try P256.Signing.PrivateKey(pemRepresentation: p8).publicKey)
            let again = try await server.inspected("/api/v1/credentials/apns-token", as: IssuedToken.self).token
            #expect(
                try ProviderToken.parse(Substring(again)).issuedAt == parsed.issuedAt,
                "the same iat for 20 minutes: the same token to APNs' churn rule")
            let access = try await server.inspected("/api/v1/credentials/fcm-access-token", as: IssuedToken.self).token
            #expect(server.accessTokens.grant(for: access)?.projectID == DevCertificates.sampleFCMProjectID)
            // The served account works: an assertion signed with its key gets a token at the real port.
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(material.file("ca.pem")))
            try await withHTTPClient(tls: tls) { client in
                let pem = try #require(account["private_key"] as? String)
                let key = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
                let assertion = try OAuthAssertion.sign(
                    key: key, keyID: account["private_key_id"] as! String, issuer: account["client_email"] as! String,
                    audience: account["token_uri"] as! String, scope: "https://www.googleapis.com/auth/firebase.messaging",
                    issuedAt: Int64(Date().timeIntervalSince1970)
                )
                let (response, _) = try await client.send(
                    account["token_uri"] as! String, method: .POST, headers: [("content-type", "application/x-www-form-urlencoded")],
                    body: Array("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)".utf8)
                )
                #expect(response.status == .ok)
            }
        }
    }
}

/// The body of `GET /api/v1/credentials/apns-token` and `…/fcm-access-token`.
private struct IssuedToken: Decodable {
    var token: String
}
