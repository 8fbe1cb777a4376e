import ArgumentParser
import Foundation
import PushMockInspection
import PushMockTransport
import Synchronization

/// `pushmock mcp`: a Model Context Protocol server on standard input and output, for a coding
/// agent, over a running PushMock's inspection API. One JSON-RPC message a line each way; requests
/// are answered as they finish, so a long `wait_for_deliveries` never holds up a `ping`.
///
/// ```json
/// {"mcpServers": {"pushmock": {"command": "pushmock", "args": ["mcp"]}}}
/// ```
struct MCPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Serve PushMock's MCP tools (list, explain, wait for deliveries; faults; devices) on stdin/stdout for a coding agent.",
        discussion: """
            Speaks to a running PushMock's inspection API: --inspection-url, else $PUSHMOCK_URL, else the locator file of a \
            server started by this user, else http://127.0.0.1:2198. The same tools are served over HTTP at /mcp on the \
            inspection port. Logs go to standard error; standard output carries only MCP messages.
            """
    )

    @Option(help: "The inspection API's base URL (default $PUSHMOCK_URL, else a running server's locator file, else http://127.0.0.1:2198).")
    var inspectionURL: String?

    @Option(help: "The inspection token, if the server wants one (default $PUSHMOCK_TOKEN or $PUSHMOCK_INSPECTION_TOKEN).")
    var inspectionToken: String?

    func run() async throws {
        let endpoint = InspectionEndpoint.resolve(url: inspectionURL, token: inspectionToken)
        try await withInspectionClient { client in
            let server = MCPServer(backend: HTTPBackend(client: client, endpoint: endpoint), version: PushMockVersion.current)
            let output = LineWriter()
            let lines = AsyncStream<String> { continuation in
                Thread.detachNewThread {
                    while let line = readLine(strippingNewline: true) { continuation.yield(line) }
                    continuation.finish()
                }
            }
            await withTaskGroup(of: Void.self) { group in
                for await line in lines where !line.allSatisfy(\.isWhitespace) {
                    group.addTask {
                        guard let reply = await server.handle(Array(line.utf8)) else { return }
                        output.write(reply)
                    }
                }
            }
        }
    }
}

/// Writes whole lines to standard output, one at a time, from any task.
final class LineWriter: Sendable {
    private let lock = Mutex(())

    func write(_ line: [UInt8]) {
        lock.withLock { _ in FileHandle.standardOutput.write(Data(line + [UInt8(ascii: "\n")])) }
    }
}

/// The inspection API over HTTP, with the token when there is one.
struct HTTPBackend: MCPBackend {
    let client: HTTPClientPool
    let endpoint: InspectionEndpoint

    func call(_ method: String, _ target: String, body: [UInt8]?) async -> MCPBackendAnswer {
        var request = ClientRequest(method: method, url: endpoint.url + target, headers: [("x-pushmock-client", "pushmock-mcp")], body: body)
        if let token = endpoint.token { request.headers.append(("authorization", "Bearer \(token)")) }
        if body != nil { request.headers.append(("content-type", "application/json")) }
        do {
            // A wait is at most 120 s; the bound only ends a hang.
            let response = try await client.execute(request, timeout: .seconds(180))
            return MCPBackendAnswer(status: response.status, body: response.body)
        } catch {
            let message =
                "no PushMock inspection API at \(endpoint.url) (\(SendClient.short(error))); start one with `pushmock serve` or pass --inspection-url"
            return MCPBackendAnswer(status: 502, body: Array(#"{"error":"\#(message.replacing("\"", with: "'"))"}"#.utf8))
        }
    }
}
