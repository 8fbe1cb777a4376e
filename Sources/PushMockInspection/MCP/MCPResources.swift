import PushMockCore

/// The MCP resources: the newest deliveries, one delivery, one Live Activity, and the rejections
/// catalogue, each the inspection API's JSON.
enum MCPResources {
    static let fixed: [JSONValue] = [
        resource("pushmock://deliveries/latest", "latest-deliveries", "The 20 newest deliveries, newest first, with PushMock's answers."),
        resource(
            "pushmock://rejections", "rejections", "Every APNs reason, Live Activity rule and FCM error PushMock answers, with what triggers it."),
    ]

    static let templates: [JSONValue] = [
        template("pushmock://deliveries/{id}", "delivery", "One delivery: the request as sent and PushMock's answer."),
        template("pushmock://activities/{token}", "activity", "One simulated Live Activity with its timeline."),
    ]

    static func resource(_ uri: String, _ name: String, _ description: String) -> JSONValue {
        .object([("uri", .string(uri)), ("name", .string(name)), ("description", .string(description)), ("mimeType", .string("application/json"))])
    }

    static func template(_ uri: String, _ name: String, _ description: String) -> JSONValue {
        .object([
            ("uriTemplate", .string(uri)), ("name", .string(name)), ("description", .string(description)), ("mimeType", .string("application/json")),
        ])
    }

    /// The API route of `uri`; nil for a URI that is none of the resources.
    static func target(of uri: String) -> String? {
        let prefix = "pushmock://"
        guard uri.hasPrefix(prefix) else { return nil }
        let parts = uri.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch (parts.first, parts.count) {
        case ("deliveries", 2) where parts[1] == "latest": return "/api/v1/deliveries?limit=20"
        case ("deliveries", 2) where UInt64(parts[1]) != nil: return "/api/v1/deliveries/\(parts[1])"
        case ("activities", 2) where !parts[1].isEmpty:
            return "/api/v1/activities/\(MCPSchema.pathSegment(PercentDecoding.queryValue(Substring(parts[1]))))"
        case ("rejections", 1): return "/api/v1/rejections"
        default: return nil
        }
    }

    /// `resources/read`: the resource's JSON; an unknown URI or one that is not found is -32002.
    static func read(_ uri: String, backend: any MCPBackend) async throws -> JSONValue {
        guard let target = target(of: uri) else {
            throw MCPServer.Failure(
                code: -32002, message: "Resource not found: \(String(uri.prefix(200))) (resources/list and resources/templates/list name them)")
        }
        let answer = await backend.call("GET", target, body: nil)
        guard answer.status == 200 else {
            throw MCPServer.Failure(
                code: answer.status == 404 ? -32002 : -32603, message: "Resource \(String(uri.prefix(200))): \(answer.errorMessage)")
        }
        let text = String(decoding: answer.body, as: UTF8.self)
        return .object([
            ("contents", .array([.object([("uri", .string(uri)), ("mimeType", .string("application/json")), ("text", .string(text))])]))
        ])
    }
}
