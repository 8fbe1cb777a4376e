import Foundation
import PushMockCore

/// A Model Context Protocol server over a PushMock's inspection API: JSON-RPC 2.0 messages in,
/// responses out, whatever carries them (`pushmock mcp` on stdio, `POST /mcp` on the inspection
/// port). It speaks the handshake revisions of the official SDKs (`initialize`, then
/// `tools/*`, `resources/*`, `prompts/*` and `ping`), and keeps no session: every request stands
/// alone, so any number of clients may share one server.
///
/// ```swift
/// let server = MCPServer(backend: backend, version: "0.4.0")
/// let reply = await server.handle(Array(#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.utf8))
/// ```
public struct MCPServer: Sendable {
    /// The revisions answered, newest first: a client asking for one of them gets it, any other the newest.
    public static let protocolVersions = ["2025-11-25", "2025-06-18", "2025-03-26"]
    /// The largest message read: a longer one is refused whole.
    public static let maximumMessageBytes = 4 << 20

    let tools: MCPTools
    let version: String

    /// A server whose tools call `backend`; `version` is PushMock's, told to clients.
    public init(backend: any MCPBackend, version: String) {
        self.tools = MCPTools(backend: backend)
        self.version = version
    }

    /// A JSON-RPC error: the code and the message.
    struct Failure: Error {
        var code: Int
        var message: String

        static func invalidParams(_ message: String) -> Failure { Failure(code: -32602, message: "Invalid params: \(message)") }
    }

    /// The response to one message, as JSON; nil for a notification (or a client's response).
    public func handle(_ bytes: [UInt8]) async -> [UInt8]? {
        guard bytes.count <= Self.maximumMessageBytes else {
            return Self.encode(
                Self.error(.null, Failure(code: -32600, message: "Invalid Request: the message is over \(Self.maximumMessageBytes) bytes")))
        }
        guard let message = JSONValue.parse(bytes) else {
            return Self.encode(Self.error(.null, Failure(code: -32700, message: "Parse error: the message is not JSON (or nested too deep)")))
        }
        guard let response = await handle(message) else { return nil }
        return Self.encode(response)
    }

    /// The response to one parsed message; nil for a notification (or a client's response).
    func handle(_ message: JSONValue) async -> JSONValue? {
        guard case .object = message else {
            return Self.error(
                .null,
                Failure(code: -32600, message: "Invalid Request: a message is one JSON-RPC object (batches are not part of this protocol revision)"))
        }
        let id = message["id"]
        guard case .string(let method)? = message["method"] else {
            // A response to a request of ours: the server sends none, so there is nothing to match.
            if message["result"] != nil || message["error"] != nil { return nil }
            return Self.error(id ?? .null, Failure(code: -32600, message: "Invalid Request: no method"))
        }
        guard let id else { return nil }  // a notification: never answered
        switch id {
        case .string, .number: break
        default: return Self.error(.null, Failure(code: -32600, message: "Invalid Request: the id must be a string or a number"))
        }
        guard message["jsonrpc"] == .string("2.0") else {
            return Self.error(id, Failure(code: -32600, message: #"Invalid Request: "jsonrpc" must be "2.0""#))
        }
        let params = message["params"] ?? .object([])
        guard case .object = params else { return Self.error(id, .invalidParams("params must be an object")) }
        do {
            return Self.result(id, try await answer(method, params))
        } catch let failure as Failure {
            return Self.error(id, failure)
        } catch {
            return Self.error(id, Failure(code: -32603, message: "Internal error: \(error)"))
        }
    }

    private func answer(_ method: String, _ params: JSONValue) async throws -> JSONValue {
        switch method {
        case "initialize":
            guard case .string(let asked)? = params["protocolVersion"] else { throw Failure.invalidParams("protocolVersion is required") }
            let negotiated = Self.protocolVersions.contains(asked) ? asked : Self.protocolVersions[0]
            return .object([
                ("protocolVersion", .string(negotiated)),
                (
                    "capabilities",
                    .object([
                        ("tools", .object([("listChanged", .bool(false))])),
                        ("resources", .object([("subscribe", .bool(false)), ("listChanged", .bool(false))])),
                        ("prompts", .object([("listChanged", .bool(false))])),
                    ])
                ),
                ("serverInfo", .object([("name", .string("pushmock")), ("title", .string("PushMock")), ("version", .string(version))])),
                ("instructions", .string(Self.instructions)),
            ])
        case "ping":
            return .object([])
        case "tools/list":
            return .object([("tools", .array(MCPTools.catalogue.map(\.listing)))])
        case "tools/call":
            guard case .string(let name)? = params["name"] else { throw Failure.invalidParams("name is required") }
            let arguments = params["arguments"] ?? .object([])
            return try await tools.call(name, arguments).json
        case "resources/list":
            return .object([("resources", .array(MCPResources.fixed))])
        case "resources/templates/list":
            return .object([("resourceTemplates", .array(MCPResources.templates))])
        case "resources/read":
            guard case .string(let uri)? = params["uri"] else { throw Failure.invalidParams("uri is required") }
            return try await MCPResources.read(uri, backend: tools.backend)
        case "prompts/list":
            return .object([("prompts", .array(MCPPrompts.all.map(\.listing)))])
        case "prompts/get":
            guard case .string(let name)? = params["name"] else { throw Failure.invalidParams("name is required") }
            return try MCPPrompts.get(name, arguments: params["arguments"] ?? .object([]))
        default:
            throw Failure(code: -32601, message: "Method not found: \(method)")
        }
    }

    static let instructions = """
        PushMock stands in for Apple's APNs and Firebase Cloud Messaging: every push a service sends it is \
        recorded with PushMock's answer and the reason. Start with list_deliveries, then explain_delivery \
        for why one was rejected or would be dropped by a device; check_payload asks whether a payload \
        would pass without sending it; wait_for_deliveries waits for pushes the code under test sends.
        """

    static func result(_ id: JSONValue, _ result: JSONValue) -> JSONValue {
        .object([("jsonrpc", .string("2.0")), ("id", id), ("result", result)])
    }

    static func error(_ id: JSONValue, _ failure: Failure) -> JSONValue {
        .object([
            ("jsonrpc", .string("2.0")), ("id", id),
            ("error", .object([("code", .number(String(failure.code))), ("message", .string(failure.message))])),
        ])
    }

    static func encode(_ value: JSONValue) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return (try? encoder.encode(value)).map(Array.init)
            ?? Array(#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}"#.utf8)
    }
}
