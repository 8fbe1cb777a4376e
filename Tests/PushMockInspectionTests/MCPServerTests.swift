import AsyncHTTPClient
import Foundation
import NIOHTTP1
import PushMockCore
import PushMockInspection
import PushMockServer
import PushMockTestSupport
import PushMockTesting
import Testing

/// The MCP server at `/mcp`, driven as a client drives it: JSON-RPC messages in, the answers read
/// back. (CI drives it with the official Python SDK too, over HTTP and over `pushmock mcp`.)
@Suite("MCP: initialize, tools, resources and prompts over the inspection port; hostile input gets a JSON-RPC error")
struct MCPServerTests {
    typealias S = APNSTestServer

    /// Posts one message to `/mcp`; the HTTP status and the JSON answered (nil: no body).
    static func post(
        _ server: PushMockServer, _ message: String, headers: [(String, String)] = [("content-type", "application/json")]
    ) async
        -> (Int, [String: Any]?)
    {
        let reply = await server.inspect("POST", "/mcp", body: message, headers: headers)
        return (reply.status, (try? JSONSerialization.jsonObject(with: Data(reply.text.utf8))) as? [String: Any])
    }

    static func call(_ server: PushMockServer, _ tool: String, _ arguments: String) async -> [String: Any]? {
        let (status, json) = await post(
            server, #"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"\#(tool)","arguments":\#(arguments)}}"#)
        #expect(status == 200)
        return json
    }

    static func text(_ answer: [String: Any]?) -> String {
        let content = (answer?["result"] as? [String: Any])?["content"] as? [[String: Any]]
        return content?.compactMap { $0["text"] as? String }.joined() ?? ""
    }

    @Test("initialize names the revision asked for (or the newest), the capabilities and the server; tools, resources and prompts are listed")
    func handshake() async throws {
        try await withPushMockServer(S.configuration()) { server in
            let (status, answer) = await Self.post(
                server,
                #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#
            )
            let result = try #require(answer?["result"] as? [String: Any])
            #expect(status == 200 && result["protocolVersion"] as? String == "2025-06-18")
            #expect((result["capabilities"] as? [String: Any])?.keys.sorted() == ["prompts", "resources", "tools"])
            #expect((result["serverInfo"] as? [String: Any])?["name"] as? String == "pushmock")
            let (_, newest) = await Self.post(server, #"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}"#)
            #expect((newest?["result"] as? [String: Any])?["protocolVersion"] as? String == MCPServer.protocolVersions[0])
            let (accepted, none) = await Self.post(server, #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            #expect(accepted == 202 && none == nil)

            let (_, tools) = await Self.post(server, #"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#)
            let listed = try #require((tools?["result"] as? [String: Any])?["tools"] as? [[String: Any]])
            #expect(
                Set(listed.compactMap { $0["name"] as? String }).isSuperset(of: [
                    "list_deliveries", "get_delivery", "explain_delivery", "wait_for_deliveries", "activity_timeline", "set_fault", "list_faults",
                    "clear_faults", "set_device", "reset", "check_payload", "send_test_push",
                ]))
            #expect(listed.allSatisfy { ($0["inputSchema"] as? [String: Any])?["type"] as? String == "object" })
            let (_, resources) = await Self.post(server, #"{"jsonrpc":"2.0","id":4,"method":"resources/list"}"#)
            #expect(((resources?["result"] as? [String: Any])?["resources"] as? [[String: Any]])?.count == 2)
            let (_, prompts) = await Self.post(server, #"{"jsonrpc":"2.0","id":5,"method":"prompts/list"}"#)
            #expect(((prompts?["result"] as? [String: Any])?["prompts"] as? [[String: Any]])?.count == 3)
            let (_, prompt) = await Self.post(
                server, #"{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"debug-push-never-arrived","arguments":{"token":"abc"}}}"#)
            #expect("\(prompt ?? [:])".contains("with token abc"))
        }
    }

    @Test(
        "a rejected push: listed, explained with its reason, field and Apple's page; read as a resource; a fault set through MCP fires on the push port"
    )
    func explainAndFault() async throws {
        try await withPushMockServer(S.configuration()) { server in
            try await withHTTPClient { client in
                let now = Int64(Date().timeIntervalSince1970)
                let token = S.token(issuedAt: now)
                let (bad, _) = try await client.send(
                    "https://localhost:\(server.pushPort)/3/device/\(S.deviceToken)", method: .POST,
                    headers: S.alertHeaders(token: token, extra: [("apns-priority", "7")]), body: S.alertBody)
                #expect(bad.status.code == 400)
                let listed = Self.text(await Self.call(server, "list_deliveries", #"{"outcome":"rejected"}"#))
                #expect(listed.contains("1 of 1 matching") && listed.contains("400 BadPriority"), "\(listed)")
                let explained = await Self.call(server, "explain_delivery", #"{"id":1}"#)
                let text = Self.text(explained)
                #expect(
                    text.contains("rejected: 400 BadPriority") && text.contains("apns-priority") && text.contains("https://developer.apple.com/"),
                    "\(text)")
                let structured = (explained?["result"] as? [String: Any])?["structuredContent"] as? [String: Any]
                #expect(structured?["reason"] as? String == "BadPriority" && structured?["field"] as? String == "header:apns-priority")

                let (_, resource) = await Self.post(
                    server, #"{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"pushmock://deliveries/1"}}"#)
                let contents = (resource?["result"] as? [String: Any])?["contents"] as? [[String: Any]]
                #expect((contents?.first?["text"] as? String)?.contains("BadPriority") == true)
                let (_, missing) = await Self.post(
                    server, #"{"jsonrpc":"2.0","id":10,"method":"resources/read","params":{"uri":"pushmock://deliveries/999"}}"#)
                #expect((missing?["error"] as? [String: Any])?["code"] as? Int == -32002)

                let set = await Self.call(
                    server, "set_fault", #"{"fault":{"id":"gone","match":{"service":"apns"},"reject":{"reason":"Unregistered"},"count":1}}"#)
                #expect((set?["result"] as? [String: Any])?["isError"] as? Bool == false, "\(set ?? [:])")
                let (gone, _) = try await client.send(
                    "https://localhost:\(server.pushPort)/3/device/\(S.deviceToken)", method: .POST, headers: S.alertHeaders(token: token),
                    body: S.alertBody)
                #expect(gone.status.code == 410)
                let faultExplained = Self.text(await Self.call(server, "explain_delivery", #"{"id":2}"#))
                #expect(faultExplained.contains("fault \"gone\""), "\(faultExplained)")
                let checked = await Self.call(
                    server, "check_payload",
                    #"{"service":"apns","token":"\#(S.deviceToken)","headers":{"apns-topic":"com.example.app","apns-priority":"7"},"payload":{"aps":{"alert":"x"}}}"#
                )
                let checkedText = Self.text(checked)
                #expect(checkedText.contains("would be rejected: 400 BadPriority") && checkedText.contains("apns-priority"), "\(checkedText)")
                #expect(try await server.deliveries().count == 2, "a check is not recorded")
                let sent = await Self.call(server, "send_test_push", #"{"service":"apns","token":"\#(S.deviceToken)"}"#)
                #expect(Self.text(sent).contains("Recorded as delivery #3: accepted"), "\(Self.text(sent))")
                // Web Push: a send mints a subscription, seals the message and signs it; a check
                // of a push to it with an urgency no push service takes gets the refusal.
                let webPush = await Self.call(server, "send_test_push", #"{"service":"webpush","payload":{"title":"Hi","body":"there"}}"#)
                #expect(Self.text(webPush).contains("answered 201") && Self.text(webPush).contains("#4: accepted"), "\(Self.text(webPush))")
                let opened = try #require(try await server.deliveries().first { $0.id == 4 })
                #expect(String(decoding: opened.body, as: UTF8.self) == #"{"title":"Hi","body":"there"}"#, "the payload as the agent wrote it")
                let subscription = try #require(opened.deviceToken)
                let urgent = Self.text(
                    await Self.call(
                        server, "check_payload", #"{"service":"webpush","subscription":"\#(subscription)","headers":{"urgency":"now"}}"#))
                #expect(urgent.contains("400") && urgent.contains("InvalidUrgency"), "\(urgent)")
                let unknown = await Self.call(server, "get_delivery", #"{"id":999}"#)
                #expect((unknown?["result"] as? [String: Any])?["isError"] as? Bool == true && Self.text(unknown).contains("404"))
            }
        }
    }

    /// A hostile message, named briefly in the test's output.
    struct Hostile: Sendable, CustomTestStringConvertible {
        let name: String
        let message: String
        let code: Int
        var testDescription: String { name }
    }

    static let hostileMessages = [
        Hostile(name: "not JSON", message: "not json", code: -32700),
        Hostile(name: "nested 100 000 deep", message: String(repeating: "[", count: 100_000), code: -32700),
        Hostile(name: "a batch", message: #"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, code: -32600),
        Hostile(name: "an unknown method", message: #"{"jsonrpc":"2.0","id":1,"method":"no/such"}"#, code: -32601),
        Hostile(name: "an unknown tool", message: #"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}"#, code: -32602),
        Hostile(
            name: "a string for an integer",
            message: #"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_delivery","arguments":{"id":"one"}}}"#, code: -32602),
        Hostile(
            name: "an unknown argument",
            message: #"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_delivery","arguments":{"id":1,"x":2}}}"#, code: -32602),
        Hostile(
            name: "a missing argument", message: #"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_delivery","arguments":{}}}"#,
            code: -32602),
        Hostile(
            name: "1e400 for an integer",
            message: #"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_deliveries","arguments":{"limit":1e400}}}"#, code: -32602),
        Hostile(
            name: "a value outside the enum",
            message: #"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_deliveries","arguments":{"outcome":"maybe"}}}"#,
            code: -32602),
        Hostile(
            name: "a 70 000-byte string",
            message:
                #"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"activity_timeline","arguments":{"token":"\#(String(repeating: "x", count: 70_000))"}}}"#,
            code: -32602),
        Hostile(name: "an object id", message: #"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#, code: -32600),
        Hostile(name: "JSON-RPC 1.0", message: #"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, code: -32600),
    ]

    @Test(
        "hostile input: not JSON, too deep, a batch, wrong types, unknown tools and arguments, huge strings: each a JSON-RPC error, the server still answering",
        arguments: hostileMessages)
    func hostile(_ hostile: Hostile) async throws {
        try await withPushMockServer(S.configuration()) { server in
            let (_, answer) = await Self.post(server, hostile.message)
            #expect((answer?["error"] as? [String: Any])?["code"] as? Int == hostile.code, "\(hostile.name): \(answer ?? [:])")
            let (status, ping) = await Self.post(server, #"{"jsonrpc":"2.0","id":"p","method":"ping"}"#)
            #expect(status == 200 && ping?["id"] as? String == "p" && ping?["result"] != nil)
        }
    }

    @Test(
        "the same guards as the API: a foreign Host, a cross-site Origin, a missing token are refused; an unsupported MCP-Protocol-Version is a 400")
    func guards() async throws {
        var configuration = S.configuration()
        configuration.inspectionToken = "secret"
        try await withPushMockServer(configuration) { server in
            let ping = #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#
            let json = ("content-type", "application/json")
            #expect(await Self.post(server, ping, headers: [json]).0 == 401)
            let bearer = ("authorization", "Bearer secret")
            #expect(await Self.post(server, ping, headers: [json, bearer]).0 == 200)
            #expect(await Self.post(server, ping, headers: [json, bearer, ("host", "evil.example")]).0 == 421)
            #expect(await Self.post(server, ping, headers: [json, bearer, ("origin", "https://evil.example")]).0 == 403)
            #expect(await Self.post(server, ping, headers: [("content-type", "text/plain"), bearer]).0 == 403)
            #expect(await Self.post(server, ping, headers: [json, bearer, ("mcp-protocol-version", "2020-01-01")]).0 == 400)
            #expect(await server.inspect("GET", "/mcp", headers: [bearer]).status == 405)
            // The tools' own calls carry the caller's token.
            let (_, listed) = await Self.post(
                server, #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_faults","arguments":{}}}"#, headers: [json, bearer])
            #expect((listed?["result"] as? [String: Any])?["isError"] as? Bool == false, "\(listed ?? [:])")
        }
    }
}
