import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

extension InspectionEndpoint {
    /// `method path` on the inspection API, decoded as `T`; a failure says what to do (start a
    /// server, pass `--inspection-url`) or what the API answered. `command` names the caller in
    /// the `x-pushmock-client` header. `body` is sent as JSON.
    func call<T: Decodable>(_ client: HTTPClient, _ method: String, _ path: String, body: [UInt8]? = nil, command: String) async throws -> T {
        var request = HTTPClientRequest(url: url + path)
        request.method = .init(rawValue: method)
        request.headers.add(name: "x-pushmock-client", value: command)
        if let body {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        if let token { request.headers.add(name: "authorization", value: "Bearer \(token)") }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: .seconds(30))
        } catch {
            throw CommandFailure(
                message: "no PushMock inspection API at \(url) (\(SendClient.short(error))); start one with `pushmock serve` or pass --inspection-url"
            )
        }
        let body = try await response.body.collect(upTo: 64 << 20)
        guard (200..<300).contains(response.status.code) else {
            throw CommandFailure(message: "\(method) \(path): \(response.status.code) \(String(buffer: body))")
        }
        return try JSONDecoder().decode(T.self, from: Data(buffer: body))
    }
}

/// A failure of a command that talks to a running PushMock (no server, an entry that did not
/// produce its answer), printed without usage.
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Runs `body` with an HTTP client, shut down afterwards whatever happens.
func withInspectionClient(_ body: (HTTPClient) async throws -> Void) async throws {
    try await SendClient.withClient(HTTPClient.Configuration(), body)
}
