import PushMockCore

/// The MCP prompts: how to debug with PushMock's tools, step by step.
enum MCPPrompts {
    struct Prompt: Sendable {
        let name: String
        let title: String
        let description: String
        let arguments: [(name: String, description: String)]
        let text: @Sendable ([String: String]) -> String

        var listing: JSONValue {
            .object([
                ("name", .string(name)), ("title", .string(title)), ("description", .string(description)),
                (
                    "arguments",
                    .array(
                        arguments.map {
                            .object([("name", .string($0.name)), ("description", .string($0.description)), ("required", .bool(false))])
                        })
                ),
            ])
        }
    }

    static let all: [Prompt] = [
        Prompt(
            name: "debug-push-never-arrived", title: "Debug a push that never arrived",
            description: "Find the push, tell whether the service refused it or a device would drop it, and say what to change.",
            arguments: [("token", "The device or registration token it was sent to (optional).")]
        ) { arguments in
            """
            A push my service sent never arrived\(arguments["token"].map { " on the device with token \($0)" } ?? ""). Using PushMock's tools:
            1. list_deliveries\(arguments["token"].map { " with token \($0)" } ?? "") to find it. If there is none, the service never sent it: say so, and look for why in the sending code.
            2. explain_delivery on it: was it rejected (the status and reason), accepted but dropped by the device, or accepted?
            3. If it was rejected or dropped, name the rule and the field, and show the change to the sending code that fixes it, citing the documentation explain_delivery gives.
            4. If a fault answered it (list_faults), say so: the rule did not refuse it.
            """
        },
        Prompt(
            name: "debug-live-activity", title: "Debug a Live Activity that never started or updated",
            description: "Follow a Live Activity's pushes and timeline and find the push the device dropped, and why.",
            arguments: [("token", "The activity's push token or the push-to-start token (optional).")]
        ) { arguments in
            """
            A Live Activity never started or never updated. Using PushMock's tools:
            1. list_deliveries with pushType liveactivity to see the pushes\(arguments["token"].map { " (token \($0))" } ?? "").
            2. activity_timeline with the activity's token (or the push-to-start token) to see its state, what the lock screen shows and its timeline.
            3. For the first push that did not change what is shown, explain_delivery: the rule (a timestamp in milliseconds, a content-state that does not decode as the app's type, a stale date, a budget spent…), and the field.
            4. Show the change to the sending code that fixes it, and check_payload the corrected push: it must come back accepted, and applied by the device.
            """
        },
        Prompt(
            name: "check-sender-against-rejections", title: "Check my sender against every rejection",
            description: "Make the code under test meet each answer APNs and FCM can give, through faults, and check it handles each one.",
            arguments: []
        ) { _ in
            """
            Check that my push-sending code handles every answer Apple and Google can give. Using PushMock's tools:
            1. Read the resource pushmock://rejections: every APNs reason, Live Activity rule and FCM error.
            2. For the answers a sender must handle (410 Unregistered, 400 BadDeviceToken, 429 TooManyRequests, 500/503, FCM UNREGISTERED, QUOTA_EXCEEDED, UNAVAILABLE), set_fault one at a time with count 1, run the code under test, and wait_for_deliveries for its push.
            3. For each, say whether the code did the right thing (stop sending to a dead token, retry with backoff, honour Retry-After), citing what you observed.
            4. clear_faults at the end.
            """
        },
    ]

    /// `prompts/get`: the prompt's message, with its arguments filled in.
    static func get(_ name: String, arguments: JSONValue) throws -> JSONValue {
        guard let prompt = all.first(where: { $0.name == name }) else {
            throw MCPServer.Failure.invalidParams("no prompt \(String(name.prefix(100))); prompts/list names them")
        }
        guard case .object(let members) = arguments else { throw MCPServer.Failure.invalidParams("arguments must be an object") }
        var values: [String: String] = [:]
        for (key, value) in members {
            guard prompt.arguments.contains(where: { $0.name == key }) else {
                throw MCPServer.Failure.invalidParams("\(String(key.prefix(64))) is not an argument of \(name)")
            }
            guard case .string(let text) = value, text.utf8.count <= 1024 else {
                throw MCPServer.Failure.invalidParams("\(key) must be a string of at most 1024 bytes")
            }
            values[key] = text
        }
        return .object([
            ("description", .string(prompt.description)),
            (
                "messages",
                .array([
                    .object([("role", .string("user")), ("content", .object([("type", .string("text")), ("text", .string(prompt.text(values)))]))])
                ])
            ),
        ])
    }
}
