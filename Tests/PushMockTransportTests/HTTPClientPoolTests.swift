import NIOSSL
import PushMockTestSupport
import PushMockTransport
import Synchronization
import Testing

@Suite("The HTTP client (HTTP/2 on nghttp2, HTTP/1.1) that the relay, the loopback sender and the CLI send with")
struct HTTPClientPoolTests {
    /// A client that trusts the test CA; `alpn` empty offers h2 and http/1.1.
    func makeClient(alpn: [String] = [], maxBodySize: Int = 1 << 20) throws -> HTTPClientPool {
        HTTPClientPool(tls: try TestTLS.clientConfiguration(alpn: alpn), connectTimeout: TestDeadline.hang, maxBodySize: maxBodySize)
    }

    /// Runs `body` with `client` and shuts it down afterwards, whatever happens.
    func using<T>(_ client: HTTPClientPool, _ body: (HTTPClientPool) async throws -> T) async throws -> T {
        do {
            let result = try await body(client)
            await client.shutdown()
            return result
        } catch {
            await client.shutdown()
            throw error
        }
    }

    @Test("https speaks HTTP/2: requests at once share one connection, each with its own headers and body")
    func http2Multiplexed() async throws {
        try await withListener { listener in
            try await using(try makeClient()) { client in
                let echoes = try await withThrowingTaskGroup(of: (Int, EchoResponder.Echo, ClientResponse).self) { group in
                    for index in 0..<20 {
                        group.addTask {
                            let request = ClientRequest(
                                method: "POST", url: "https://127.0.0.1:\(listener.port)/echo/\(index)",
                                headers: [("X-Index", "\(index)"), ("connection", "keep-alive")], body: Array(repeating: 0x61, count: index * 100))
                            let response = try await client.execute(request, timeout: TestDeadline.hang)
                            return (index, try decodeEcho(response.body), response)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(echoes.count == 20)
                for (index, echo, response) in echoes {
                    #expect(response.status == 200)
                    #expect(response.header("content-type") == "application/json")
                    #expect(echo.httpVersion == "HTTP/2" || echo.httpVersion == "2", "\(echo.httpVersion)")
                    #expect(echo.alpn == "h2")
                    #expect(echo.method == "POST" && echo.path == "/echo/\(index)")
                    #expect(echo.bodyBytes == index * 100)
                    #expect(echo.authority == "127.0.0.1:\(listener.port)")
                    // Names go lowercase, and connection-specific fields stay off HTTP/2.
                    #expect(echo.headers.contains(["x-index", "\(index)"]))
                    #expect(!echo.headers.contains { $0.first == "connection" })
                    #expect(echo.headers.contains(["content-length", "\(index * 100)"]))
                }
                #expect(Set(echoes.map(\.1.connectionID)).count == 1, "one shared HTTP/2 connection")
            }
        }
    }

    @Test("http speaks HTTP/1.1 and reuses the connection the server keeps open")
    func http1KeptOpen() async throws {
        try await withListener(tls: false) { listener in
            try await using(HTTPClientPool(tls: nil)) { client in
                var connections: Set<UInt64> = []
                for index in 0..<3 {
                    let response = try await client.execute(
                        ClientRequest(method: "PUT", url: "http://127.0.0.1:\(listener.port)/one/\(index)?q=1", body: Array("body".utf8)),
                        timeout: TestDeadline.hang)
                    let echo = try decodeEcho(response.body)
                    #expect(response.status == 200)
                    #expect(echo.httpVersion.contains("1.1"), "\(echo.httpVersion)")
                    #expect(echo.method == "PUT" && echo.path == "/one/\(index)?q=1" && echo.bodyBytes == 4)
                    connections.insert(echo.connectionID)
                }
                #expect(connections.count == 1)
                await #expect(throws: HTTPClientFailure.self) {
                    _ = try await client.execute(ClientRequest(url: "https://127.0.0.1:\(listener.port)/"), timeout: TestDeadline.hang)
                }
            }
        }
    }

    @Test("https falls back to HTTP/1.1 where ALPN chooses it")
    func http1OverTLS() async throws {
        try await withListener { listener in
            try await using(try makeClient(alpn: ["http/1.1"])) { client in
                for _ in 0..<2 {
                    let response = try await client.execute(ClientRequest(url: "https://127.0.0.1:\(listener.port)/tls1"), timeout: TestDeadline.hang)
                    let echo = try decodeEcho(response.body)
                    #expect(echo.alpn == "http/1.1" && echo.tls && echo.method == "GET")
                }
            }
        }
    }

    @Test("a request past its deadline fails and resets its stream; the connection serves the next one")
    func deadline() async throws {
        try await withListener { listener in
            try await using(try makeClient()) { client in
                let base = "https://127.0.0.1:\(listener.port)"
                let first = try decodeEcho(try await client.execute(ClientRequest(url: "\(base)/before"), timeout: TestDeadline.hang).body)
                let failure = await #expect(throws: HTTPClientFailure.self) {
                    _ = try await client.execute(ClientRequest(url: "\(base)/slow/600000"), timeout: .milliseconds(300))
                }
                #expect(failure?.description == "no answer before the deadline")
                let after = try decodeEcho(try await client.execute(ClientRequest(url: "\(base)/after"), timeout: TestDeadline.hang).body)
                #expect(after.connectionID == first.connectionID)
            }
        }
    }

    @Test("cancelling the task gives up on the request at once")
    func cancelled() async throws {
        let responder = EchoResponder()
        try await withListener(responder: responder) { listener in
            try await using(try makeClient()) { client in
                let task = Task {
                    try await client.execute(ClientRequest(url: "https://127.0.0.1:\(listener.port)/slow/600000"), timeout: TestDeadline.hang)
                }
                try await responder.log.waitFor("/slow/600000")
                task.cancel()
                let result = await task.result
                #expect(throws: HTTPClientFailure.cancelled) { try result.get() }
            }
        }
    }

    @Test("a reset stream, a GOAWAY and a body over the limit are told apart")
    func serverEndings() async throws {
        try await withListener { listener in
            try await using(try makeClient(maxBodySize: 200)) { client in
                let base = "https://127.0.0.1:\(listener.port)"
                let reset = await #expect(throws: HTTPClientFailure.self) {
                    _ = try await client.execute(ClientRequest(url: "\(base)/reset"), timeout: TestDeadline.hang)
                }
                #expect(reset?.description.contains("CANCEL") == true, "\(String(describing: reset))")
                let large = await #expect(throws: HTTPClientFailure.self) {
                    _ = try await client.execute(
                        ClientRequest(url: "\(base)/large", headers: [("x-pad", String(repeating: "p", count: 300))]), timeout: TestDeadline.hang)
                }
                #expect(large?.description == "the answer's body is over 200 bytes")
                let before = try await client.execute(ClientRequest(url: "\(base)/goaway"), timeout: TestDeadline.hang)
                #expect(before.status == 200)
                // After GOAWAY a new connection carries the next request.
                let next = try await client.execute(ClientRequest(url: "\(base)/status/204"), timeout: TestDeadline.hang)
                #expect(next.status == 204)
            }
        }
    }

    @Test("an untrusted certificate, a refused connection and a bad URL fail with what went wrong")
    func connectFailures() async throws {
        let refusing = try RefusingPort()
        let closedPort = refusing.port
        try await withListener { listener in
            try await using(HTTPClientPool(tls: try TestTLS.strangerConfiguration())) { client in
                let untrusted = await #expect(throws: HTTPClientFailure.self) {
                    _ = try await client.execute(ClientRequest(url: "https://localhost:\(listener.port)/"), timeout: TestDeadline.hang)
                }
                #expect(untrusted?.description.contains("CERTIFICATE_VERIFY_FAILED") == true, "\(String(describing: untrusted))")
                let refused = await #expect(throws: HTTPClientFailure.self) {
                    _ = try await client.execute(ClientRequest(url: "http://127.0.0.1:\(closedPort)/"), timeout: TestDeadline.hang)
                }
                // In a few words, not NIO's list of every address tried with its type names.
                #expect(
                    refused?.description == "cannot connect to 127.0.0.1:\(closedPort): Connection refused (errno 111)",
                    "\(String(describing: refused))")
                // Requests that wait for the same HTTP/2 connection fail with it.
                let failures = await withTaskGroup(of: String?.self) { group in
                    for _ in 0..<5 {
                        group.addTask {
                            do {
                                _ = try await client.execute(ClientRequest(url: "https://127.0.0.1:\(closedPort)/"), timeout: TestDeadline.hang)
                                return nil
                            } catch {
                                return "\(error)"
                            }
                        }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                #expect(
                    failures.count == 5 && failures.allSatisfy { $0?.hasPrefix("cannot connect to 127.0.0.1:\(closedPort)") == true }, "\(failures)")
                let bad = await #expect(throws: HTTPClientFailure.self) {
                    _ = try await client.execute(ClientRequest(url: "ftp://example.com/"), timeout: TestDeadline.hang)
                }
                #expect(bad?.description == "not an http or https URL: ftp://example.com/")
            }
        }
        withExtendedLifetime(refusing) {}
    }

    @Test("TLS that cannot be used fails https requests (and prepareTLS) with why, and leaves http alone")
    func unusableTLS() async throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file("/nonexistent/pushmock-ca.pem")
        try await withListener(tls: false) { listener in
            try await using(HTTPClientPool(tls: tls)) { client in
                #expect(throws: HTTPClientFailure.self) { try client.prepareTLS() }
                let refused = await #expect(throws: HTTPClientFailure.self) {
                    _ = try await client.execute(ClientRequest(url: "https://127.0.0.1:\(listener.port)/"), timeout: TestDeadline.hang)
                }
                #expect(refused?.description.hasPrefix("the TLS configuration is not usable") == true, "\(String(describing: refused))")
                let plain = try await client.execute(ClientRequest(url: "http://127.0.0.1:\(listener.port)/plain"), timeout: TestDeadline.hang)
                #expect(plain.status == 200)
            }
        }
    }

    @Test("after shutdown no request is sent")
    func afterShutdown() async throws {
        let client = try makeClient()
        await client.shutdown()
        await #expect(throws: HTTPClientFailure.shutDown) {
            _ = try await client.execute(ClientRequest(url: "https://127.0.0.1:1/"), timeout: TestDeadline.hang)
        }
    }
}
