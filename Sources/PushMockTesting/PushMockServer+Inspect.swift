import Foundation
public import PushMockInspection
public import PushMockServer

/// An inspection API answer read in a test: the status, the headers and the body, as text, as
/// JSON, or decoded into one of ``PushMockInspection``'s transfer types.
public struct InspectionReply: Sendable {
    /// The response as the inspection port would send it.
    public let response: InspectionResponse

    /// A reply around `response`.
    public init(response: InspectionResponse) {
        self.response = response
    }

    /// The HTTP status.
    public var status: Int { response.status }
    /// The body as UTF-8 text.
    public var text: String { String(decoding: response.body, as: UTF8.self) }
    /// The body as a JSON object (empty when it is not one).
    public var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:] }
    /// The value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? { response.header(name) }

    /// The message of an error body (`{"error": "..."}`), or nil when the body is not one.
    public var errorMessage: String? { (try? decode(ErrorBody.self))?.error }

    /// The body decoded as `type` (a transfer type such as `DeliveryList`, or your own).
    public func decode<Value: Decodable>(_ type: Value.Type = Value.self) throws -> Value {
        try JSONDecoder().decode(Value.self, from: Data(response.body))
    }
}

/// The inspection API's error body.
private struct ErrorBody: Decodable {
    var error: String
}

extension PushMockServer {
    /// Calls the inspection API in-process, through the same route table, guards and handlers as
    /// the port, without a socket (Hummingbird's `.router` test mode). A test body written against
    /// it runs unchanged against the real port with ``PushMockClient``'s calls or any HTTP client.
    ///
    /// ```swift
    /// let reply = await server.inspect("GET", "/api/v1/deliveries?outcome=rejected")
    /// #expect(reply.status == 200)
    /// let list = try reply.decode(DeliveryList.self)
    /// ```
    ///
    /// The default header marks the call as a tool's, as the port's browser guard expects of
    /// a state-changing request.
    public func inspect(
        _ method: String = "GET", _ target: String, body: String? = nil, headers: [(String, String)] = [("x-pushmock-client", "tests")]
    ) async -> InspectionReply {
        let request = InspectionRequest(
            method: method, target: target, headers: headers.map { (name: $0.0, value: $0.1) }, body: body.map { Array($0.utf8) } ?? [])
        return InspectionReply(response: await inspection.respond(to: request).head)
    }
}
