import Foundation
import Logging
import PushMockCore
import PushMockHTTP
import PushMockInspection
import PushMockTransport

/// Google's metadata server as GCP workloads see it, on a port of its own (`--metadata-port`): Google's
/// auth libraries that find no key file ask it for an access token and the project, and find it
/// through `GCE_METADATA_HOST` and `GCE_METADATA_IP` (`host:port`). Tokens are PushMock's own, for
/// the first configured service account (the "default" one). Every request is recorded as an
/// `oauth` delivery.
///
/// ```sh
/// pushmock serve --metadata-port 2199
/// GCE_METADATA_HOST=127.0.0.1:2199 GCE_METADATA_IP=127.0.0.1:2199 python send.py   # credentials.ApplicationDefault()
/// ```
final class MetadataServer: HTTPResponder, Sendable {
    let account: ServiceAccount?
    let tokens: AccessTokenStore
    let lifetime: Duration
    let recorder: PushRecorder
    let clock: PushMockClock
    /// The DNS-rebinding guard: Host must be a loopback name, one of Google's metadata names, the
    /// bound host or an `--inspection-allowed-host`.
    let hostGuard: InspectionGuard

    /// The names Google's libraries and GCP workloads reach the metadata server by.
    static let metadataHosts = ["metadata.google.internal", "metadata", "169.254.169.254"]

    /// Scopes a token gets when the request names none (those of a default compute service account).
    static let defaultScopes = ["https://www.googleapis.com/auth/cloud-platform", "https://www.googleapis.com/auth/userinfo.email"]
    /// What Google's metadata server answers without the `Metadata-Flavor: Google` header.
    static let missingFlavor = "Missing required header: Metadata-Flavor\n"

    init(
        account: ServiceAccount?, tokens: AccessTokenStore, lifetime: Duration, recorder: PushRecorder, clock: PushMockClock,
        hostGuard: InspectionGuard
    ) {
        self.hostGuard = hostGuard
        self.account = account
        self.tokens = tokens
        self.lifetime = lifetime
        self.recorder = recorder
        self.clock = clock
    }

    func respond(to request: HTTPServerRequest, context: RequestContext) -> ResponderResult {
        let now = clock.now
        let (status, contentType, body, reason) = answer(request, now: now)
        var recorded = PushOutcome(.oauth, reason == nil ? .accepted : .rejected)
        recorded.identity = status == 200 ? account?.clientEmail : nil
        recorded.reason = reason
        recorded.explanation = reason.map { _ in String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) }
        recorded.diagnostics = ["metadata server"]
        recorded.project = status == 200 ? account?.projectID : nil
        let response = HTTPServerResponse(
            status: status, headers: [("metadata-flavor", "Google"), ("content-type", contentType), ("server", "Metadata Server for VM")], body: body)
        return recorder.record(recorded, of: request, at: now, response: response, fault: nil, context: context)
    }

    /// Status, content type, body and the recorded reason of a refusal.
    func answer(_ request: HTTPServerRequest, now: PushInstant) -> (Int, String, [UInt8], String?) {
        let text = "application/text"
        if let host = request.authority, !hostGuard.isAllowed(authority: host) {
            let names = (["localhost", "127.0.0.1", "[::1]"] + Self.metadataHosts).joined(separator: ", ")
            return (
                421, text,
                Array(
                    "PushMock's metadata server answers only the Host names \(names) and --inspection-allowed-host; \(PrintableText.escaped(host)) is not one (DNS-rebinding guard).\n"
                        .utf8), "MisdirectedRequest"
            )
        }
        let (path, query) = Self.split(request.path)
        // google-auth's detection: GET / with the header, answered with `Metadata-Flavor: Google`.
        if path == "/" {
            return (200, text, Array("computeMetadata/\n".utf8), nil)
        }
        guard request.method == "GET" else {
            return (405, text, Array("Method not allowed\n".utf8), "MethodNotAllowed")
        }
        guard request.headers["metadata-flavor"] == "Google" else {
            return (403, "text/html; charset=UTF-8", Array(Self.missingFlavor.utf8), "MissingMetadataFlavor")
        }
        guard let account else {
            return (404, text, Array("No service account is configured (--fcm-service-account)\n".utf8), "NotFound")
        }
        let prefix = "/computeMetadata/v1/"
        guard path.hasPrefix(prefix) else { return (404, text, Array("Not Found\n".utf8), "NotFound") }
        let rest = String(path.dropFirst(prefix.count))
        let accountPrefixes = ["instance/service-accounts/default", "instance/service-accounts/\(account.clientEmail)"]
        for accountPath in accountPrefixes where rest == accountPath || rest.hasPrefix(accountPath + "/") {
            let leaf = rest.dropFirst(accountPath.count).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            switch leaf {
            case "token":
                let scopes = query["scopes"].map { $0.split(separator: ",").map(String.init).filter { !$0.isEmpty } } ?? Self.defaultScopes
                let scope = (scopes.isEmpty ? Self.defaultScopes : scopes).joined(separator: " ")
                if let problem = OAuthTokenEndpoint.scopeTooLong(scope) {
                    return (400, text, Array((problem.description + "\n").utf8), "InvalidScopes")
                }
                let expiresIn = lifetime.wholeSeconds
                let token = tokens.issue(
                    .init(clientEmail: account.clientEmail, projectID: account.projectID, scope: scope, expiresAt: now.secondsSinceEpoch &+ expiresIn)
                )
                return (200, "application/json", Array(#"{"access_token":"\#(token)","expires_in":\#(expiresIn),"token_type":"Bearer"}"#.utf8), nil)
            case "email":
                return (200, text, Array(account.clientEmail.utf8), nil)
            case "scopes":
                return (200, text, Array(Self.defaultScopes.joined(separator: "\n").utf8 + [10]), nil)
            case "aliases":
                return (200, text, Array("default\n".utf8), nil)
            case "":
                let scopes = Self.defaultScopes.map { "\"\($0)\"" }.joined(separator: ",")
                return (
                    200, "application/json",
                    Array(#"{"aliases":["default"],"email":"\#(JSONText.escape(account.clientEmail))","scopes":[\#(scopes)]}"#.utf8), nil
                )
            default:
                return (404, text, Array("Not Found\n".utf8), "NotFound")
            }
        }
        switch rest {
        case "project/project-id":
            return (200, text, Array(account.projectID.utf8), nil)
        case "project/numeric-project-id":
            return (200, text, Array(Self.projectNumber(account.projectID).utf8), nil)
        case "universe/universe-domain", "universe/universe_domain":
            return (200, text, Array("googleapis.com".utf8), nil)
        case "instance/service-accounts", "instance/service-accounts/":
            return (200, text, Array("default/\n\(account.clientEmail)/\n".utf8), nil)
        default:
            return (404, text, Array("Not Found\n".utf8), "NotFound")
        }
    }

    /// A stable twelve-digit number for a project id (real projects have one; PushMock's are made up).
    static func projectNumber(_ projectID: String) -> String {
        var hash: UInt64 = 1_469_598_103_934_665_603
        for byte in projectID.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        return String(100_000_000_000 + hash % 900_000_000_000)
    }

    /// The path and its decoded query parameters.
    static func split(_ target: String) -> (String, [String: String]) {
        guard let mark = target.firstIndex(of: "?") else { return (target, [:]) }
        var query: [String: String] = [:]
        for pair in target[target.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count > 1 ? PercentDecoding.queryValue(parts[1]) : ""
            query[String(parts[0])] = value
        }
        return (String(target[..<mark]), query)
    }
}
