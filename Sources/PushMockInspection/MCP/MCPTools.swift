import Foundation
import PushMockCore

/// The MCP server's tools: each one a JSON Schema for its input and a run over the inspection API,
/// answering text an agent reads and the API's JSON as structured content.
struct MCPTools: Sendable {
    let backend: any MCPBackend

    /// One tool.
    struct Tool: Sendable {
        let name: String
        let title: String
        let description: String
        let schema: JSONValue
        /// Whether it only reads (an agent may call it without asking).
        let readOnly: Bool
        let run: @Sendable (MCPTools, Arguments) async throws -> Result

        var listing: JSONValue {
            .object([
                ("name", .string(name)), ("title", .string(title)), ("description", .string(description)), ("inputSchema", schema),
                (
                    "annotations",
                    .object([
                        ("title", .string(title)), ("readOnlyHint", .bool(readOnly)), ("destructiveHint", .bool(!readOnly && name != "set_device")),
                        ("openWorldHint", .bool(false)),
                    ])
                ),
            ])
        }
    }

    /// What a tool answers: text, the API's JSON (an object), and whether it failed.
    struct Result: Sendable {
        var text: String
        var structured: JSONValue?
        var isError = false

        var json: JSONValue {
            var members: [(key: String, value: JSONValue)] = [("content", .array([.object([("type", .string("text")), ("text", .string(text))])]))]
            if let structured, case .object = structured { members.append(("structuredContent", structured)) }
            members.append(("isError", .bool(isError)))
            return .object(members)
        }

        static func failure(_ text: String) -> Result { Result(text: text, structured: nil, isError: true) }
    }

    /// A tool's arguments, checked against its schema.
    struct Arguments: Sendable {
        let members: [(key: String, value: JSONValue)]

        subscript(_ name: String) -> JSONValue? { members.last { $0.key == name }?.value }

        func string(_ name: String) -> String? {
            if case .string(let text)? = self[name] { return text }
            return nil
        }

        func integer(_ name: String) -> Int64? { self[name]?.int64 }
    }

    /// Runs tool `name` with `arguments`: arguments its schema refuses are a JSON-RPC error
    /// (-32602), as is an unknown tool; a failure of the API is a result with `isError`.
    func call(_ name: String, _ arguments: JSONValue) async throws -> Result {
        guard let tool = Self.catalogue.first(where: { $0.name == name }) else {
            throw MCPServer.Failure.invalidParams("no tool \(name); tools/list names them")
        }
        guard case .object(let members) = arguments else { throw MCPServer.Failure.invalidParams("arguments must be an object") }
        try MCPSchema.check(arguments, against: tool.schema, at: "arguments")
        return try await tool.run(self, Arguments(members: members))
    }

    /// `method target` on the API: the JSON answered on success, else a failed result to return.
    func api(
        _ method: String, _ target: String, body: JSONValue? = nil, accepting: Set<Int> = [200]
    ) async -> Swift.Result<(Int, JSONValue), ToolFailure> {
        // The arguments as the agent wrote them (a payload keeps its members' order).
        let answer = await backend.call(method, target, body: body.map(\.compactText))
        guard accepting.contains(answer.status) else {
            return .failure(ToolFailure(result: .failure("\(method) \(target) answered \(answer.status): \(answer.errorMessage)")))
        }
        return .success((answer.status, answer.json ?? .null))
    }

    /// A failed API call, as the tool's answer.
    struct ToolFailure: Error {
        let result: Result
    }

    // MARK: The catalogue

    static let catalogue: [Tool] = [
        Tool(
            name: "list_deliveries", title: "List deliveries",
            description:
                "The pushes PushMock recorded, newest first, with PushMock's answer (status, reason) for each. Takes the inspection API's filters; page with before=<the oldest id shown>.",
            schema: MCPSchema.object(
                MCPSchema.deliveryFilters + [
                    ("after", MCPSchema.integer("Only deliveries with a greater id (a cursor).", minimum: 0)),
                    ("before", MCPSchema.integer("Only deliveries with a smaller id (the next page).", minimum: 0)),
                    ("limit", MCPSchema.integer("At most this many (default 20).", minimum: 1, maximum: 100)),
                ]),
            readOnly: true
        ) { tools, arguments in
            var query = MCPSchema.query(arguments, names: MCPSchema.deliveryFilterNames + ["after", "before"])
            query.append(("limit", String(arguments.integer("limit") ?? 20)))
            switch await tools.api("GET", "/api/v1/deliveries" + MCPSchema.encode(query)) {
            case .failure(let failure): return failure.result
            case .success(let (_, json)):
                let list = try JSONDecoder().decode(DeliveryList.self, from: Data(MCPServer.encode(json)))
                var lines = ["\(list.deliveries.count) of \(list.total) matching deliveries, newest first:"]
                lines += list.deliveries.map(MCPExplanation.line)
                if list.deliveries.count < list.total, let oldest = list.oldestId { lines.append("More: call again with before=\(oldest).") }
                return Result(text: lines.joined(separator: "\n"), structured: json)
            }
        },
        Tool(
            name: "get_delivery", title: "Get a delivery",
            description: "One recorded push: the request as sent (headers, body, decoded JWT claims) and PushMock's answer.",
            schema: MCPSchema.object([("id", MCPSchema.integer("The delivery's id.", minimum: 1))], required: ["id"]), readOnly: true
        ) { tools, arguments in
            switch await tools.api("GET", "/api/v1/deliveries/\(arguments.integer("id") ?? 0)") {
            case .failure(let failure): return failure.result
            case .success(let (_, json)): return Result(text: MCPExplanation.pretty(json), structured: json)
            }
        },
        Tool(
            name: "explain_delivery", title: "Explain a delivery",
            description:
                "Why a push was accepted, rejected, or would be dropped by the device: the rule, the field, what the sender should change, Apple's or Google's documentation, and the diagnostics of accepted pushes.",
            schema: MCPSchema.object([("id", MCPSchema.integer("The delivery's id.", minimum: 1))], required: ["id"]), readOnly: true
        ) { tools, arguments in
            let id = arguments.integer("id") ?? 0
            switch await tools.api("GET", "/api/v1/deliveries/\(id)") {
            case .failure(let failure): return failure.result
            case .success(let (_, json)):
                let delivery = try JSONDecoder().decode(DeliveryResource.self, from: Data(MCPServer.encode(json)))
                let entries = await tools.catalogue()
                let explanation = MCPExplanation.explain(delivery, catalogue: entries)
                return Result(text: explanation.text, structured: explanation.json)
            }
        },
        Tool(
            name: "wait_for_deliveries", title: "Wait for deliveries",
            description:
                "Waits until `count` deliveries matching the filters exist after the cursor `after` (the newestId a previous call returned), or the timeout passes. Call it, then make the code under test send.",
            schema: MCPSchema.object(
                MCPSchema.deliveryFilters.filter { $0.key != "relayAgrees" } + [
                    ("after", MCPSchema.integer("Only deliveries with a greater id (default: those already recorded count).", minimum: 0)),
                    ("count", MCPSchema.integer("How many to wait for (default 1).", minimum: 1, maximum: 1000)),
                    ("timeoutSeconds", MCPSchema.integer("How long to wait (default 10).", minimum: 1, maximum: 120)),
                ]),
            readOnly: true
        ) { tools, arguments in
            var query = MCPSchema.query(arguments, names: MCPSchema.deliveryFilterNames.filter { $0 != "relayAgrees" } + ["after", "count"])
            query.append(("timeout", "\(arguments.integer("timeoutSeconds") ?? 10)s"))
            switch await tools.api("GET", "/api/v1/deliveries/wait" + MCPSchema.encode(query), accepting: [200, 408]) {
            case .failure(let failure): return failure.result
            case .success(let (status, json)):
                let result = try JSONDecoder().decode(WaitResult.self, from: Data(MCPServer.encode(json)))
                let head =
                    status == 200
                    ? "\(result.count) matching deliveries arrived (newestId \(result.newestId.map(String.init) ?? "none"))."
                    : "Timed out: \(result.count) of the \(arguments.integer("count") ?? 1) matching deliveries arrived."
                return Result(text: ([head] + result.deliveries.map(MCPExplanation.line)).joined(separator: "\n"), structured: json)
            }
        },
        Tool(
            name: "activity_timeline", title: "Live Activity timeline",
            description:
                "A simulated Live Activity by its activity token (or push-to-start token): its state, what the lock screen shows, its timeline, and why the last update did not change what is shown, when it did not.",
            schema: MCPSchema.object(
                [("token", MCPSchema.string("The activity's push token, or the device's push-to-start token."))], required: ["token"]),
            readOnly: true
        ) { tools, arguments in
            let token = arguments.string("token") ?? ""
            switch await tools.api("GET", "/api/v1/activities/\(MCPSchema.pathSegment(token))") {
            case .failure(let failure): return failure.result
            case .success(let (_, json)):
                let activity = try JSONDecoder().decode(ActivityResource.self, from: Data(MCPServer.encode(json)))
                return Result(text: MCPExplanation.timeline(activity), structured: json)
            }
        },
        Tool(
            name: "check_payload", title: "Check a payload",
            description:
                "Would this push be accepted? Judges an APNs request (headers and payload), an FCM message or a Web Push message to a minted subscription with the push port's own rules and the simulated device's current state, and answers the status, reason, rule and diagnostics the push port would give. Nothing is recorded, no fault fires, no Live Activity changes. An APNs request without an authorization header is signed with PushMock's key; an FCM message is judged as if sent with a valid access token; a Web Push payload is sealed to the subscription's keys and VAPID signed with vapidKey (or a new key) unless an authorization header is given.",
            schema: MCPSchema.object(MCPSchema.testPush, required: ["service"]), readOnly: true
        ) { tools, arguments in
            switch await tools.api("POST", "/api/v1/check", body: .object(arguments.members)) {
            case .failure(let failure): return failure.result
            case .success(let (_, json)):
                let check = try JSONDecoder().decode(CheckResult.self, from: Data(MCPServer.encode(json)))
                let entries = await tools.catalogue()
                let explanation = MCPExplanation.explain(check.delivery, catalogue: entries, checked: true)
                let text = explanation.text + "\nThe push port would answer \(check.status): \(check.body.isEmpty ? "(no body)" : check.body)"
                return Result(text: text, structured: .object([("check", json), ("explanation", explanation.json)]))
            }
        },
        Tool(
            name: "send_test_push", title: "Send a test push",
            description:
                "Sends a push through PushMock's push port, as `pushmock send` does, and answers what the port answered and the recorded delivery's id (explain_delivery explains it). APNs: signed with PushMock's key; apns-topic, apns-push-type alert and a sample payload are filled in when missing. FCM: sent with an access token of PushMock's service account; a sample message to a new registration token when none is given. Web Push: sealed (aes128gcm) to the subscription's keys and VAPID signed, as an application server sends it; without a subscription, one is minted (its id is the delivery's token) with the signing key as its application server key.",
            schema: MCPSchema.object(MCPSchema.testPush, required: ["service"]), readOnly: false
        ) { tools, arguments in
            switch await tools.api("POST", "/api/v1/send", body: .object(arguments.members)) {
            case .failure(let failure): return failure.result
            case .success(let (_, json)):
                let sent = try JSONDecoder().decode(SendResult.self, from: Data(MCPServer.encode(json)))
                var lines = ["The push port answered \(sent.status): \(sent.body.isEmpty ? "(no body)" : sent.body)"]
                if let id = sent.deliveryId {
                    lines.append(
                        "Recorded as delivery #\(id): \(sent.outcome?.rawValue ?? "?")\(sent.reason.map { ", \($0)" } ?? ""). explain_delivery with id \(id) says why."
                    )
                }
                return Result(text: lines.joined(separator: "\n"), structured: json)
            }
        },
        Tool(
            name: "list_faults", title: "List faults", description: "The faults set: what each matches, what it answers, how often it fired.",
            schema: MCPSchema.object([]), readOnly: true
        ) { tools, _ in
            await tools.plain("GET", "/api/v1/faults")
        },
        Tool(
            name: "set_fault", title: "Set a fault",
            description:
                #"Adds a fault: the next matching pushes get its answer, e.g. {"id":"gone","match":{"service":"apns"},"reject":{"reason":"Unregistered"},"count":1}, or a "sequence" of steps for retry tests. The same object as the configuration file's faults."#,
            schema: MCPSchema.object([("fault", MCPSchema.anyObject("The fault, as PUT /api/v1/faults takes it."))], required: ["fault"]),
            readOnly: false
        ) { tools, arguments in
            await tools.plain("PUT", "/api/v1/faults", body: arguments["fault"])
        },
        Tool(
            name: "clear_faults", title: "Clear faults", description: "Removes the fault `id`, or every fault when no id is given.",
            schema: MCPSchema.object([("id", MCPSchema.string("The fault's id."))]), readOnly: false
        ) { tools, arguments in
            await tools.plain("DELETE", "/api/v1/faults" + (arguments.string("id").map { "/" + MCPSchema.pathSegment($0) } ?? ""))
        },
        Tool(
            name: "set_device", title: "Set a device",
            description:
                #"Registers a device token with a state, e.g. {"state":"unregistered"} (APNs 410 Unregistered, FCM UNREGISTERED), {"bundleId":"com.example.app"} or {"liveActivity":"pushToStart"}."#,
            schema: MCPSchema.object(
                [
                    ("token", MCPSchema.string("The device or registration token.")),
                    ("device", MCPSchema.anyObject("The device record, as PUT /api/v1/devices/{token} takes it.")),
                ], required: ["token", "device"]),
            readOnly: false
        ) { tools, arguments in
            await tools.plain("PUT", "/api/v1/devices/\(MCPSchema.pathSegment(arguments.string("token") ?? ""))", body: arguments["device"])
        },
        Tool(
            name: "reset", title: "Reset",
            description:
                "Clears every delivery; devices and faults go back to the configuration; simulated activities and access tokens are forgotten.",
            schema: MCPSchema.object([]), readOnly: false
        ) { tools, _ in
            await tools.plain("POST", "/api/v1/reset", body: .object([]))
        },
    ]

    /// The rejections catalogue's entries (none when the API does not answer them).
    func catalogue() async -> [RejectionEntry] {
        guard case .success(let (_, json)) = await api("GET", "/api/v1/rejections") else { return [] }
        return (try? JSONDecoder().decode(RejectionList.self, from: Data(MCPServer.encode(json))).entries) ?? []
    }

    /// The API's answer as the result: its JSON, pretty, as the text.
    func plain(_ method: String, _ target: String, body: JSONValue? = nil) async -> Result {
        switch await api(method, target, body: body) {
        case .failure(let failure): return failure.result
        case .success(let (_, json)):
            if case .object = json { return Result(text: MCPExplanation.pretty(json), structured: json) }
            return Result(text: MCPExplanation.pretty(json), structured: .object([("result", json)]))
        }
    }
}
