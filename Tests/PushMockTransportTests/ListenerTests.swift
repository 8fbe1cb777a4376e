import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import PushMockTestSupport
import PushMockTransport
import Synchronization
import Testing

@Suite("The listener speaks HTTP/2 and HTTP/1.1 to real clients")
struct ListenerTests {
    @Test("negotiates h2 over TLS with ALPN and reports the SNI")
    func http2OverTLS() async throws {
        try await withListener { listener in
            try await withHTTPClient { client in
                let (response, body) = try await client.send(
                    "https://localhost:\(listener.port)/hello?x=1", method: .POST, headers: [("x-a", "1"), ("x-a", "2")], body: Array("{}".utf8))
                #expect(response.status == .ok)
                #expect(response.version == .http2)
                let echo = try decodeEcho(body)
                #expect(echo.httpVersion == "HTTP/2")
                #expect(echo.alpn == "h2")
                #expect(echo.tls)
                #expect(echo.serverName == "localhost")
                #expect(echo.method == "POST")
                #expect(echo.path == "/hello?x=1")
                #expect(echo.bodyBytes == 2)
                // Duplicates are kept, in order.
                #expect(echo.headers.filter { $0[0] == "x-a" }.map { $0[1] } == ["1", "2"])
            }
        }
    }

    @Test("a deferred streamed answer whose client left first still hands its producer a (closed) writer")
    func lateStreamAfterClose() async throws {
        let responder = EchoResponder()
        try await withListener(tls: false, responder: responder) { listener in
            let raw = try await RawClient.connect(port: listener.port)
            try await raw.send(Array("GET /late-stream HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n".utf8))
            try await responder.log.waitFor("/late-stream")
            try await raw.channel.close()
            // The answer is completed once the server has seen the client leave.
            let left = await eventually { listener.connectionCount == 0 }
            #expect(left, "the server saw the client leave")
            responder.log.lateRelease.store(true, ordering: .sequentiallyConsistent)
            _ = await eventually { responder.log.lateWriterClosed.withLock { $0 } != nil }
            #expect(responder.log.lateWriterClosed.withLock { $0 } == true, "the producer ran, on a closed writer, so it can give back what it took")
        }
    }

    @Test("a responder's 1xx is never written with a body: a 500 on HTTP/1.1 and HTTP/2, and the connection goes on", arguments: [true, false])
    func informationalStatusFromResponder(http1Only: Bool) async throws {
        try await withListener { listener in
            try await withHTTPClient(http1Only: http1Only) { client in
                for status in [100, 101, 103, 199, 42, 600] {
                    let (response, body) = try await client.send("https://localhost:\(listener.port)/status/\(status)")
                    #expect(response.status == .internalServerError, "\(status)")
                    #expect(String(decoding: body, as: UTF8.self).contains("not a final status"))
                }
                let (fine, _) = try await client.send("https://localhost:\(listener.port)/status/202")
                #expect(fine.status == .accepted)
                let (after, _) = try await client.send("https://localhost:\(listener.port)/after")
                #expect(after.status == .ok, "the process and the connection are still there")
            }
        }
    }

    @Test(
        "a responder's 204, 205 or 304 with a body is sent without it, on HTTP/1.1 and HTTP/2, and the connection stays in step",
        arguments: [true, false])
    func bodylessStatusFromResponder(http1Only: Bool) async throws {
        try await withListener { listener in
            try await withHTTPClient(http1Only: http1Only) { client in
                for status in [204, 205, 304] {
                    let (response, body) = try await client.send("https://localhost:\(listener.port)/status/\(status)")
                    #expect(Int(response.status.code) == status)
                    #expect(body.isEmpty, "\(status): \(String(decoding: body, as: UTF8.self))")
                    #expect(!response.headers.contains(name: "content-type"), "\(status): no body, no content-type")
                    // The next answer on the same connection is read as itself, not as the body left over.
                    let (after, echo) = try await client.send("https://localhost:\(listener.port)/after-\(status)")
                    #expect(after.status == .ok)
                    #expect(try decodeEcho(echo).path == "/after-\(status)")
                }
            }
        }
    }

    @Test("serves HTTP/1.1 when ALPN picks http/1.1")
    func http1OverTLS() async throws {
        try await withListener { listener in
            try await withHTTPClient(http1Only: true) { client in
                let (response, body) = try await client.send(
                    "https://127.0.0.1:\(listener.port)/one", method: .POST, headers: [("X-Mixed-Case", "v")], body: Array("abc".utf8))
                #expect(response.version == .http1_1)
                let echo = try decodeEcho(body)
                #expect(echo.httpVersion == "HTTP/1.1")
                #expect(echo.alpn == "http/1.1")
                #expect(echo.bodyBytes == 3)
                #expect(echo.headers.contains(["x-mixed-case", "v"]))
                // Keep-alive: a second request on the same connection.
                let (_, second) = try await client.send("https://127.0.0.1:\(listener.port)/two")
                #expect(try decodeEcho(second).connectionID == echo.connectionID)
            }
        }
    }

    @Test("serves HTTP/2 to a TLS client that offers no ALPN, as aioapns does")
    func http2WithoutALPN() async throws {
        try await withListener { listener in
            let client = try await H2FrameClient.connect(port: listener.port, tls: true, alpn: [])
            defer { Task { await client.close() } }
            client.send(streamID: 1, path: "/no-alpn", body: Array("{}".utf8))
            _ = try await client.completedStream(1)
            #expect(try await client.status(of: 1) == "200")
            let echo = try decodeEcho(client.body(of: 1))
            #expect(echo.httpVersion == "HTTP/2")
            #expect(echo.alpn == nil)
            #expect(echo.tls)
        }
    }

    @Test("serves h2c with prior knowledge and HTTP/1.1 on one cleartext port")
    func cleartext() async throws {
        try await withListener(tls: false) { listener in
            let h2 = try await H2FrameClient.connect(port: listener.port, tls: false)
            defer { Task { await h2.close() } }
            h2.send(streamID: 1, method: "GET", path: "/h2c")
            _ = try await h2.completedStream(1)
            let echo = try decodeEcho(h2.body(of: 1))
            #expect(echo.httpVersion == "HTTP/2")
            #expect(!echo.tls)

            try await withHTTPClient { client in
                let (response, body) = try await client.send("http://127.0.0.1:\(listener.port)/h1")
                #expect(response.version == .http1_1)
                #expect(try decodeEcho(body).httpVersion == "HTTP/1.1")
            }
        }
    }

    @Test("a resumed answer runs its work, then answers on the loop as respond would (its own result handled too), on HTTP/2 and HTTP/1.1")
    func resumed() async throws {
        try await withListener(tls: false) { listener in
            let h2 = try await H2FrameClient.connect(port: listener.port, tls: false)
            defer { Task { await h2.close() } }
            h2.send(streamID: 1, method: "GET", path: "/resumed")
            h2.send(streamID: 3, method: "GET", path: "/h2c")
            _ = try await h2.completedStream(1)
            #expect(String(decoding: h2.body(of: 1), as: UTF8.self) == "resumed HTTP/2 after work: true")
            _ = try await h2.completedStream(3)
            #expect(try decodeEcho(h2.body(of: 3)).path == "/h2c", "the connection keeps serving other streams")

            try await withHTTPClient { client in
                let (response, body) = try await client.send("http://127.0.0.1:\(listener.port)/resumed")
                #expect(response.status == .ok)
                #expect(String(decoding: body, as: UTF8.self) == "resumed HTTP/1.1 after work: true")
                let (next, _) = try await client.send("http://127.0.0.1:\(listener.port)/after")
                #expect(next.status == .ok, "the HTTP/1.1 connection serves the next request")
            }
        }
    }

    @Test("answers 413 to a body over the cap and keeps the connection serving")
    func bodyOverCap() async throws {
        try await withListener(maxBodySize: 1024) { listener in
            try await withHTTPClient { client in
                let url = "https://localhost:\(listener.port)/big"
                let (response, body) = try await client.send(url, method: .POST, body: [UInt8](repeating: 0x61, count: 200_000))
                #expect(response.status == .payloadTooLarge)
                #expect(String(decoding: body, as: UTF8.self).contains("PayloadTooLarge"))
                let (first, firstBody) = try await client.send(url, method: .POST, body: [UInt8](repeating: 0x61, count: 1024))
                #expect(first.status == .ok)
                let (_, secondBody) = try await client.send(url, method: .POST, body: Array("{}".utf8))
                #expect(try decodeEcho(firstBody).connectionID == decodeEcho(secondBody).connectionID)
            }
            // The same over HTTP/1.1: the rest of the body is discarded, the connection kept.
            try await withHTTPClient(http1Only: true) { client in
                let url = "https://localhost:\(listener.port)/big"
                let (response, _) = try await client.send(url, method: .POST, body: [UInt8](repeating: 0x61, count: 100_000))
                #expect(response.status == .payloadTooLarge)
                let (next, _) = try await client.send(url, method: .POST, body: Array("{}".utf8))
                #expect(next.status == .ok)
            }
        }
    }

    @Test("serves many concurrent streams on one connection")
    func manyConcurrentStreams() async throws {
        try await withListener { listener in
            try await withHTTPClient { client in
                let url = "https://localhost:\(listener.port)/concurrent"
                let ids = try await withThrowingTaskGroup(of: UInt64.self) { group in
                    for _ in 0..<200 {
                        group.addTask { try decodeEcho(try await client.send(url, method: .POST, body: Array("{}".utf8)).body).connectionID }
                    }
                    return try await group.reduce(into: [UInt64]()) { $0.append($1) }
                }
                #expect(ids.count == 200)
                #expect(Set(ids).count == 1, "all 200 requests should share one HTTP/2 connection")
            }
            // And at the frame level: 300 streams opened back to back.
            let h2 = try await H2FrameClient.connect(port: listener.port, tls: true)
            defer { Task { await h2.close() } }
            for index in 0..<300 {
                h2.send(streamID: 2 * index + 1, path: "/s\(index)", body: Array("{}".utf8))
            }
            _ = try await h2.completedStream(599)
            for index in 0..<300 {
                #expect(try await h2.status(of: 2 * index + 1) == "200")
            }
        }
    }
}
