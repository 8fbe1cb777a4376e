import ArgumentParser
import Foundation
import NIOSSL
import PushMockCore
import PushMockServer
import PushMockTransport

/// What a running server serves at `GET /api/v1/credentials`: its push URL, its CA, and the sample
/// APNs key and service account, so that `pushmock send` works against any server (another data
/// directory, a container) given only its inspection API.
struct ServerCredentials {
    /// Where they came from.
    var source: String
    var pushURL: String?
    var caPEM: String?
    var apnsKeyP8: String?
    var apnsKeyID: String?
    var apnsTeamID: String?
    var serviceAccountJSON: [UInt8]?

    init(source: String, json: JSONValue) {
        func string(_ value: JSONValue?) -> String? { if case .string(let text)? = value { text } else { nil } }
        self.source = source
        pushURL = string(json["pushUrl"])
        caPEM = string(json["caPem"])
        apnsKeyP8 = string(json["apns"]?["p8"])
        apnsKeyID = string(json["apns"]?["keyId"])
        apnsTeamID = string(json["apns"]?["teamId"])
        if let account = json["serviceAccount"], case .object = account {
            serviceAccountJSON = try? Array(JSONEncoder().encode(account))
        }
    }

    /// The push URL as reached from here: the inspection API's host (what the caller reaches the
    /// server by) with the push port the server reports.
    func pushURL(reachedThrough inspection: String) -> String? {
        guard let pushURL, let served = URLComponents(string: pushURL), let port = served.port,
            let reached = URLComponents(string: inspection), let host = reached.percentEncodedHost
        else { return pushURL }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "https://\(bracketed):\(port)"
    }
}

/// The HTTP clients `pushmock send` uses: one for the inspection API, one for the push port that
/// trusts the server's CA.
struct SendClient {
    let push: HTTPClientPool
    let inspection: HTTPClientPool
    let endpoint: InspectionEndpoint?
    let server: ServerCredentials?
    let pushURL: String
    /// Which CA the push client trusts, for error messages.
    let caOrigin: String
    let allowRejection: Bool

    static func run(_ target: SendCommand.Target, _ body: (SendClient) async throws -> Void) async throws {
        try await withClient(.makeClientConfiguration()) { inspection in
            try await run(target, inspection: inspection, body)
        }
    }

    /// Runs `body` with a client (`tls` for `https` URLs) that is shut down after it, whatever
    /// happens.
    static func withClient(_ tls: TLSConfiguration, _ body: (HTTPClientPool) async throws -> Void) async throws {
        let client = HTTPClientPool(tls: tls)
        do {
            try await body(client)
            await client.shutdown()
        } catch {
            await client.shutdown()
            throw error
        }
    }

    private static func run(_ target: SendCommand.Target, inspection: HTTPClientPool, _ body: (SendClient) async throws -> Void) async throws {
        let endpoint = target.endpoint
        var server: ServerCredentials?
        if let endpoint, target.url == nil || target.ca == nil {
            server = await fetchCredentials(endpoint, client: inspection)
        }
        let pushURL = target.url ?? endpoint.flatMap { server?.pushURL(reachedThrough: $0.url) } ?? "https://localhost:2197"
        var tls = TLSConfiguration.makeClientConfiguration()
        let caOrigin: String
        if let ca = target.ca {
            guard FileManager.default.fileExists(atPath: ca) else { throw ValidationError("--ca \(ca): no such file") }
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(ca))
            caOrigin = ca
        } else if let pem = server?.caPEM {
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8)))
            caOrigin = "the CA served at \(server?.source ?? "")"
        } else {
            let local = DevMaterialDirectory.resolve(dataDirectory: nil).file(DevCertificates.FileName.caCertificate)
            if FileManager.default.fileExists(atPath: local) {
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(local))
                caOrigin = local
            } else {
                caOrigin = "the system's trusted CAs"
            }
        }
        try await withClient(tls) { push in
            try await body(
                SendClient(
                    push: push, inspection: inspection, endpoint: endpoint, server: server, pushURL: pushURL, caOrigin: caOrigin,
                    allowRejection: target.allowRejection))
        }
    }

    /// The server's credentials, or nil (with a note on standard error) when its inspection API
    /// does not give them.
    static func fetchCredentials(_ endpoint: InspectionEndpoint, client: HTTPClientPool) async -> ServerCredentials? {
        switch await credentials(endpoint, client: client) {
        case .success(let credentials):
            return credentials
        case .failure(let why):
            FileHandle.standardError.write(Data("note: \(why.description); using local credentials\n".utf8))
            return nil
        }
    }

    /// Why a server's inspection API gave no credentials.
    struct CredentialsUnavailable: Error, CustomStringConvertible {
        var description: String
    }

    /// The same, asked with a client of its own.
    static func credentials(_ endpoint: InspectionEndpoint) async throws -> Result<ServerCredentials, CredentialsUnavailable> {
        var result = Result<ServerCredentials, CredentialsUnavailable>.failure(CredentialsUnavailable(description: "\(endpoint.url) was not asked"))
        try await withClient(.makeClientConfiguration()) { client in
            result = await credentials(endpoint, client: client)
        }
        return result
    }

    /// The server's credentials, or why its inspection API does not give them.
    static func credentials(_ endpoint: InspectionEndpoint, client: HTTPClientPool) async -> Result<ServerCredentials, CredentialsUnavailable> {
        let url = "\(endpoint.url)/api/v1/credentials"
        var request = ClientRequest(url: url)
        if let token = endpoint.token { request.headers.append(("authorization", "Bearer \(token)")) }
        do {
            let response = try await client.execute(request, timeout: .seconds(10))
            guard response.status == 200, let json = JSONValue.parse(response.body) else {
                let hint = response.status == 401 ? " (pass --inspection-token or set PUSHMOCK_TOKEN)" : ""
                return .failure(CredentialsUnavailable(description: "\(url) answered \(response.status)\(hint)"))
            }
            return .success(ServerCredentials(source: url, json: json))
        } catch {
            return .failure(CredentialsUnavailable(description: "no PushMock inspection API at \(endpoint.url) (\(Self.short(error)))"))
        }
    }

    func post(_ url: String, headers: [(String, String)], body: [UInt8]) async throws -> (status: Int, headers: [(String, String)], body: String) {
        let request = ClientRequest(method: "POST", url: url, headers: headers.map { (name: $0.0, value: $0.1) }, body: body)
        do {
            let response = try await push.execute(request, timeout: .seconds(30))
            return (response.status, response.headers.map { ($0.name, $0.value) }, String(decoding: response.body, as: UTF8.self))
        } catch {
            throw SendFailure(description: explain(error, url: url))
        }
    }

    /// Why a request to the push port failed, and what to do, without the library's internals.
    func explain(_ error: any Error, url: String) -> String {
        let text = "\(error)"
        let host = URLComponents(string: url)?.host ?? url
        let where_ = endpoint.map { "\($0.url)/api/v1/credentials/ca.pem" } ?? "<inspection API>/api/v1/credentials/ca.pem"
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("unable to get local issuer") {
            return
                "TLS to \(url) failed: its certificate is not signed by \(caOrigin). Trust the server's own CA: pass --inspection-url of that server (its CA comes from \(where_)), or --ca FILE"
        }
        if text.contains("ostname") {
            return
                "TLS to \(url) failed: the server's certificate does not name \(host). Start the server with --cert-host \(host) (or PUSHMOCK_CERT_HOSTS), or reach it as localhost"
        }
        return "cannot reach \(url): \(Self.short(error))"
    }

    /// An error's description without source paths (" at /…") from the machine that built the binary.
    static func short(_ error: any Error) -> String {
        var text = "\(error)"
        while let range = text.range(of: " at /") {
            let end = text[range.upperBound...].firstIndex { $0 == ")" || $0 == "," || $0 == "]" } ?? text.endIndex
            text.removeSubrange(range.lowerBound..<end)
        }
        return text
    }

    /// Ends the command: exit 1 for an answer other than 2xx, unless `--allow-rejection`.
    func finish(status: Int) throws {
        guard !(200..<300).contains(status), !allowRejection else { return }
        FileHandle.standardError.write(Data("the push was answered \(status): exit 1 (--allow-rejection exits 0 on any answer)\n".utf8))
        throw ExitCode(1)
    }

    /// Prints how the newest matching delivery was recorded.
    func printRecorded(filter: String) async {
        guard let endpoint else { return }
        var request = ClientRequest(url: "\(endpoint.url)/api/v1/deliveries?limit=1&\(filter)")
        if let token = endpoint.token { request.headers.append(("authorization", "Bearer \(token)")) }
        guard let response = try? await inspection.execute(request, timeout: .seconds(5)), response.status == 200,
            case .array(let list)? = JSONValue.parse(response.body)?["deliveries"], let delivery = list.first
        else {
            print("recorded: (the inspection API at \(endpoint.url) did not answer; --inspection-url none skips this)")
            return
        }
        func text(_ key: String) -> String? { if case .string(let value)? = delivery[key] { value } else { nil } }
        var line = "recorded: \(text("outcome") ?? "?")"
        if let reason = text("reason") { line += " \(reason)" }
        if let explanation = text("explanation") { line += " — \(explanation)" }
        if case .number(let id)? = delivery["id"] { line += " (delivery \(id))" }
        print(line)
        if case .array(let diagnostics)? = delivery["diagnostics"] {
            for case .string(let diagnostic) in diagnostics { print("  \(diagnostic)") }
        }
    }
}

/// Why `pushmock send` could not reach the push port: printed as `Error: …`, exit status 1.
struct SendFailure: Error, CustomStringConvertible {
    var description: String
}
