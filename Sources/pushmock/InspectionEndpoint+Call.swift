import Foundation
import NIOSSL
import PushMockTransport

extension InspectionEndpoint {
    /// `method path` on the inspection API, decoded as `T`; a failure says what to do (start a
    /// server, pass `--inspection-url`) or what the API answered. `command` names the caller in
    /// the `x-pushmock-client` header. `body` is sent as JSON.
    func call<T: Decodable>(_ client: HTTPClientPool, _ method: String, _ path: String, body: [UInt8]? = nil, command: String) async throws -> T {
        var request = ClientRequest(method: method, url: url + path, headers: [("x-pushmock-client", command)], body: body)
        if body != nil { request.headers.append(("content-type", "application/json")) }
        if let token { request.headers.append(("authorization", "Bearer \(token)")) }
        let response: ClientResponse
        do {
            response = try await client.execute(request, timeout: .seconds(30))
        } catch {
            throw CommandFailure(
                message: "no PushMock inspection API at \(url) (\(SendClient.short(error))); start one with `pushmock serve` or pass --inspection-url"
            )
        }
        guard (200..<300).contains(response.status) else {
            throw CommandFailure(message: "\(method) \(path): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
        return try JSONDecoder().decode(T.self, from: Data(response.body))
    }
}

/// A failure of a command that talks to a running PushMock (no server, an entry that did not
/// produce its answer), printed without usage.
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Runs `body` with an HTTP client for the inspection API (`http`, or `https` trusting the
/// system's CAs), shut down afterwards whatever happens.
func withInspectionClient(_ body: (HTTPClientPool) async throws -> Void) async throws {
    try await SendClient.withClient(.makeClientConfiguration(), body)
}
