package import AsyncHTTPClient
import Foundation
import NIOCore
package import NIOHTTP1
import NIOHTTP2
package import NIOSSL

/// AsyncHTTPClient set up to trust the test CA (or with `tls`), over HTTP/2 (`.automatic`) or
/// HTTP/1.1 only; always shut down.
package func withHTTPClient<T>(
    http1Only: Bool = false, tls: TLSConfiguration? = nil, dnsOverride: [String: String] = [:], _ body: (HTTPClient) async throws -> T
) async throws -> T {
    var configuration = HTTPClient.Configuration()
    configuration.dnsOverride = dnsOverride
    configuration.tlsConfiguration = try tls ?? TestTLS.clientConfiguration(alpn: [])
    configuration.httpVersion = http1Only ? .http1Only : .automatic
    // Connecting (TCP and TLS) is bounded as a hang is, not by what an idle machine takes.
    configuration.timeout = .init(connect: .seconds(60))
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    do {
        let result = try await body(client)
        try await client.shutdown()
        return result
    } catch {
        try? await client.shutdown()
        throw error
    }
}

extension HTTPClient {
    /// Sends a request and collects the whole response.
    package func send(
        _ url: String, method: HTTPMethod = .GET, headers: [(String, String)] = [], body: [UInt8]? = nil, timeout: Duration = TestDeadline.hang
    ) async throws -> (response: HTTPClientResponse, body: [UInt8]) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers {
            request.headers.add(name: name, value: value)
        }
        // Inspection API state changes need a JSON content type or this header (the cross-site
        // guard); tests that check the guard itself send raw requests through `sendRaw`.
        if url.contains("/api/v1/"), method != .GET,
            !headers.contains(where: { $0.0.lowercased() == "content-type" || $0.0.lowercased() == "x-pushmock-client" })
        {
            request.headers.add(name: "x-pushmock-client", value: "tests")
        }
        if let body {
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await execute(
            request, timeout: .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return (response, Array(bytes.readableBytesView))
    }
}

extension H2FrameClient {
    /// The DATA bytes received on `streamID`.
    package func body(of streamID: Int) -> [UInt8] {
        frames.reduce(into: []) { bytes, frame in
            guard frame.streamID == HTTP2StreamID(streamID), case .data(let data) = frame.payload, case .byteBuffer(let buffer) = data.data else {
                return
            }
            bytes += buffer.readableBytesView
        }
    }
}
