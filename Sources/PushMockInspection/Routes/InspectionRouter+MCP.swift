import PushMockCore

/// `POST /mcp`: the MCP server over Streamable HTTP, behind the same guards as the rest of the
/// port (the Host check, the cross-site check on `Origin` and the content type, the inspection
/// token). Each request is one JSON-RPC message answered with one JSON response; a notification is
/// answered 202. No session is kept and no stream is offered (`GET /mcp` is 405).
extension InspectionRouter {
    func mcp(_ call: InspectionCall) async throws -> InspectionAnswer {
        let request = call.request
        if let version = request.header("mcp-protocol-version"), !MCPServer.protocolVersions.contains(version) {
            throw InspectionError.badRequest(
                "MCP-Protocol-Version \(version) is not supported; this server speaks \(MCPServer.protocolVersions.joined(separator: ", "))")
        }
        // The tools call this router with the caller's own credentials and Host, through the same guards.
        let forwarded = request.headers.filter { $0.name == "authorization" }
        let server = MCPServer(backend: RouterBackend(router: self, forwarded: forwarded, host: request.host), version: settings.version)
        guard let reply = await server.handle(request.body) else {
            return .response(InspectionResponse(status: 202, contentType: "application/json", body: []))
        }
        // A body that is not one JSON-RPC object gets its JSON-RPC error with 400.
        guard case .object? = JSONValue.parse(request.body) else {
            return .response(InspectionResponse(status: 400, contentType: "application/json", body: reply))
        }
        return .response(InspectionResponse(status: 200, contentType: "application/json", body: reply))
    }
}
