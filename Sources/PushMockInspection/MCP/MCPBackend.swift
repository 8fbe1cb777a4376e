import PushMockCore

/// Where the MCP server's tools read and change a PushMock: its inspection API, one request at a
/// time. `pushmock mcp` (stdio) reaches a running server over HTTP; `/mcp` on the inspection port
/// calls the port's own router in-process, with the caller's credentials.
public protocol MCPBackend: Sendable {
    /// `method target` (`GET /api/v1/deliveries?limit=5`) with a JSON `body`: the API's answer.
    func call(_ method: String, _ target: String, body: [UInt8]?) async -> MCPBackendAnswer
}

/// What the inspection API answered.
public struct MCPBackendAnswer: Sendable {
    public var status: Int
    public var body: [UInt8]

    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }

    /// The body as JSON (nil when it is not).
    var json: JSONValue? { JSONValue.parse(body) }

    /// The API's `{"error": "…"}` message, else the body as text.
    var errorMessage: String {
        if case .string(let message)? = json?["error"] { return message }
        return String(decoding: body.prefix(2000), as: UTF8.self)
    }
}

/// The inspection port's own router as the backend (`/mcp`): each call is a request with the
/// caller's `Host` and `Authorization`, so it passes the same guards the caller did.
struct RouterBackend: MCPBackend {
    let router: InspectionRouter
    let forwarded: [(name: String, value: String)]
    let host: String?

    func call(_ method: String, _ target: String, body: [UInt8]?) async -> MCPBackendAnswer {
        var headers = forwarded
        headers.append(("x-pushmock-client", "pushmock-mcp"))
        if body != nil { headers.append(("content-type", "application/json")) }
        let request = InspectionRequest(method: method, target: target, headers: headers, body: body ?? [], authority: host)
        switch await router.respond(to: request) {
        case .response(let response): return MCPBackendAnswer(status: response.status, body: response.body)
        case .stream: return MCPBackendAnswer(status: 501, body: Array(#"{"error":"a stream cannot be read through MCP"}"#.utf8))
        }
    }
}
