/// The browser guards of the inspection port (issue 10, defect 7), as pure logic:
///
/// - **DNS rebinding.** The `Host` (or `:authority`) must name a loopback host (`localhost`,
///   `*.localhost`, `127.x.x.x`, `::1`), the configured inspection host, or one of the allowed
///   hosts. A page whose name was rebound to 127.0.0.1 sends its own name and is refused, so it can
///   read nothing, not even recorded provider tokens.
/// - **Cross-site requests.** A state-changing request (`POST`, `PUT`, `PATCH`, `DELETE`) needs
///   `content-type: application/json` (or `text/x-swift`, which Swift source is sent as) or an
///   `x-pushmock-client` header. A web page can send none of them to another origin without a
///   CORS preflight, which PushMock never grants. A foreign
///   `Origin` is refused too.
///
/// `/livez` and `/readyz` are not guarded (probes send the pod's address as Host; they reveal nothing).
public struct InspectionGuard: Sendable {
    /// Host names (lower case, without port) answered besides the loopback names.
    public var allowedHosts: Set<String>

    /// Creates the guard for an inspection port bound to `inspectionHost`, answering `extraHosts` too.
    public init(inspectionHost: String, extraHosts: [String] = []) {
        var hosts = Set(extraHosts.map { $0.lowercased() })
        let bound = inspectionHost.lowercased().trimmingBrackets
        if !["0.0.0.0", "::", ""].contains(bound) {
            hosts.insert(bound)
        }
        allowedHosts = hosts
    }

    /// The header a non-browser client may send instead of a JSON content type.
    public static let clientHeader = "x-pushmock-client"

    /// The answer to a request whose Host is not this port's (421), checked before anything else.
    public func hostRefusal(path: String, host: String?) -> InspectionError? {
        if path == "/livez" || path == "/readyz" { return nil }
        guard let host, !isAllowed(authority: host) else { return nil }
        return InspectionError(
            421,
            "the inspection API answers only loopback Host names (localhost, 127.0.0.1, [::1]) and --inspection-host; \(host) is not one (DNS-rebinding guard). Add it with --inspection-allowed-host."
        )
    }

    /// The answer to a state-changing request that a web page of another origin could have sent
    /// (403), checked once the route is known to take the method.
    public func crossSiteRefusal(method: String, path: String, headers: [(name: String, value: String)]) -> InspectionError? {
        guard ["POST", "PUT", "PATCH", "DELETE"].contains(method) else { return nil }
        func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
        if let origin = header("origin"), !isAllowed(origin: origin) {
            return InspectionError(
                403, "cross-origin requests may not change PushMock's state (Origin \(origin)); use the API from loopback, curl or PushMockClient")
        }
        let contentType = header("content-type").map { $0.split(separator: ";").first.map(String.init) ?? $0 }?
            .trimmingCharacters(in: " \t").lowercased()
        // Neither is a CORS-safelisted type, so both need a preflight.
        guard contentType == "application/json" || contentType == "text/x-swift" || header(Self.clientHeader) != nil else {
            return InspectionError(
                403,
                "\(method) \(path) changes PushMock's state: send it with content-type: application/json or an \(Self.clientHeader) header (a guard against cross-site requests from web pages)"
            )
        }
        return nil
    }

    /// Whether `authority` (`host[:port]`, `[v6]:port`) names an allowed host.
    public func isAllowed(authority: String) -> Bool {
        var host = Substring(authority.lowercased())
        if host.hasPrefix("[") {
            guard let end = host.firstIndex(of: "]") else { return false }
            host = host[host.index(after: host.startIndex)..<end]
        } else if let colon = host.lastIndex(of: ":"), host.firstIndex(of: ":") == colon {
            host = host[..<colon]
        }
        if host.hasSuffix(".") { host = host.dropLast() }
        let name = String(host)
        if name == "localhost" || name.hasSuffix(".localhost") || name == "::1" { return true }
        if name.hasPrefix("127."), name.split(separator: ".").count == 4,
            name.split(separator: ".").allSatisfy({ UInt8($0) != nil })
        {
            return true
        }
        return allowedHosts.contains(name)
    }

    /// Whether a browser `Origin` (`scheme://host[:port]`) is one of this port's own.
    func isAllowed(origin: String) -> Bool {
        let parts = origin.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].hasSuffix(":"), origin.contains("://") else { return false }
        return isAllowed(authority: String(parts[1]))
    }
}

extension String {
    fileprivate var trimmingBrackets: String {
        hasPrefix("[") && hasSuffix("]") ? String(dropFirst().dropLast()) : self
    }

    /// Without leading and trailing characters of `set`.
    func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
