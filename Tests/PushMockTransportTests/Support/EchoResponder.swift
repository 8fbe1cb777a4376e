import Foundation
import NIOCore
import PushMockTestSupport
import PushMockTransport
import Synchronization

/// A responder for transport tests. Answers with what the transport told it, and has paths that
/// exercise the per-connection controls:
///
/// - `/header-only`: 200 with no body.
/// - `/status/<n>`: status n with a body (a responder's mistake when n is 1xx).
/// - `/settings/<n>`: advertises SETTINGS_MAX_CONCURRENT_STREAMS = n, then 200.
/// - `/goaway`: GOAWAY with `{"reason":"Shutdown"}`, then 200.
/// - `/slow/<ms>`: 200 after a delay (a deferred response).
/// - `/reset`: RST_STREAM(CANCEL).
/// - `/resumed`: a resumed answer: 50 ms of work off the loop, then, on the loop, a 30 ms delayed
///   200 whose body names the connection's HTTP version.
/// - `/late-stream`: a deferred answer completed once the test says so (`log.lateRelease`, after
///   the server has seen the client leave) as a streamed body; the writer the producer got is
///   reported in `log.lateWriterClosed`.
/// - anything else: 200 with a JSON echo of the request and connection.
struct EchoResponder: HTTPResponder {
    /// Paths received, in order (so a test can wait until the server has a request in hand).
    let log = RequestLog()

    struct Echo: Codable {
        var method: String
        var path: String
        var authority: String?
        var headers: [[String]]
        var bodyBytes: Int
        var limit: String?
        var httpVersion: String
        var alpn: String?
        var serverName: String?
        var tls: Bool
        var connectionID: UInt64
    }

    func respond(to request: HTTPServerRequest, context: RequestContext) -> ResponderResult {
        let path = request.path
        log.append(path)
        if path == "/header-only" {
            return .response(HTTPServerResponse(status: 200, headers: [("x-header-only", "1")]))
        }
        if path.hasPrefix("/status/"), let status = Int(path.dropFirst("/status/".count)) {
            return .response(HTTPServerResponse(status: status, headers: [("content-type", "text/plain")], body: Array("a body".utf8)))
        }
        if path.hasPrefix("/settings/"), let value = UInt32(path.dropFirst("/settings/".count)) {
            context.control.setMaxConcurrentStreams(value)
            return .response(HTTPServerResponse(status: 200))
        }
        if path == "/goaway" {
            context.control.goAway(errorCode: .noError, debugData: Array(#"{"reason":"Shutdown"}"#.utf8))
            return .response(HTTPServerResponse(status: 200))
        }
        if path.hasPrefix("/goaway-after-answer/"), let ms = Int64(path.dropFirst("/goaway-after-answer/".count)) {
            context.control.goAwayAfterAnswer(errorCode: .noError, debugData: Array(#"{"reason":"Shutdown"}"#.utf8))
            let answer = HTTPServerResponse(status: 200, body: Array("the answer".utf8))
            return ms == 0 ? .response(answer) : .delayed(answer, by: .milliseconds(ms))
        }
        if path.hasPrefix("/slow/"), let ms = Int64(path.dropFirst("/slow/".count)) {
            return .delayed(HTTPServerResponse(status: 200, body: Array("slow".utf8)), by: .milliseconds(ms))
        }
        if path == "/late-stream" {
            let answer = DeferredResponse()
            let log = self.log
            Task {
                while !log.lateRelease.load(ordering: .sequentiallyConsistent) { try await Task.sleep(for: .milliseconds(5)) }
                answer.stream(HTTPServerResponse(status: 200, headers: [("content-type", "text/event-stream")])) { writer in
                    log.lateWriterClosed.withLock { $0 = writer.isClosed }
                    writer.finish()
                }
            }
            return .deferred(answer)
        }
        if path == "/reset" {
            return .resetStream(.cancel)
        }
        if path == "/resumed" {
            let worked = Mutex(false)
            return .resumed(
                ResponderResumption(
                    work: {
                        try? await Task.sleep(for: .milliseconds(50))
                        worked.withLock { $0 = true }
                    },
                    respond: { context in
                        let body = "resumed \(context.connection.httpVersion.rawValue) after work: \(worked.withLock { $0 })"
                        return .delayed(HTTPServerResponse(status: 200, body: Array(body.utf8)), by: .milliseconds(30))
                    }))
        }
        let limit: String?
        switch request.limitExceeded {
        case .bodySize: return .response(.json(status: 413, #"{"reason":"PayloadTooLarge"}"#))
        case .headerListSize: return .response(.json(status: 431, #"{"reason":"HeaderListTooLarge"}"#))
        case nil: limit = nil
        }
        let echo = Echo(
            method: request.method,
            path: path,
            authority: request.authority,
            headers: request.headers.map { [$0.name, $0.value] },
            bodyBytes: request.body.count,
            limit: limit,
            httpVersion: context.connection.httpVersion.rawValue,
            alpn: context.connection.alpnProtocol,
            serverName: context.connection.serverName,
            tls: context.connection.isTLS,
            connectionID: context.connection.id
        )
        let body = (try? JSONEncoder().encode(echo)).map(Array.init) ?? []
        return .response(HTTPServerResponse(status: 200, headers: [("content-type", "application/json")], body: body))
    }
}

/// What a responder received, readable from the test.
final class RequestLog: Sendable {
    private let paths = Mutex<[String]>([])
    /// Whether the writer `/late-stream`'s producer got was closed (nil until it got one).
    let lateWriterClosed = Mutex<Bool?>(nil)
    /// Set by the test: `/late-stream`'s answer may be completed now.
    let lateRelease = Atomic<Bool>(false)
    func append(_ path: String) { paths.withLock { $0.append(path) } }
    var all: [String] { paths.withLock { $0 } }

    /// Waits until `path` was received.
    func waitFor(_ path: String, timeout: Duration = TestDeadline.hang) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if all.contains(path) { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TestFailure("the server never received \(path); received \(all)")
    }
}

/// Starts a listener on port 0 and always shuts it down.
@discardableResult
func withListener<T>(
    tls: Bool = true,
    maxBodySize: Int = 64 * 1024,
    settings: PushMockTransport.HTTP2Settings = .init(),
    gracePeriod: TimeAmount = .seconds(5),
    responder: any HTTPResponder = EchoResponder(),
    _ body: (HTTPListener) async throws -> T
) async throws -> T {
    let configuration = ListenerConfiguration(
        host: "127.0.0.1",
        port: 0,
        tls: tls ? TestTLS.serverTLS() : nil,
        http2: settings,
        maxRequestBodySize: maxBodySize,
        shutdownGracePeriod: gracePeriod,
        // No deadline closes a test's connection while a busy machine runs it (HardeningTests
        // checks the deadline, through the server).
        protocolDeadline: nil
    )
    let listener = try await HTTPListener.bind(configuration: configuration, responder: responder)
    do {
        let result = try await body(listener)
        await listener.shutdown()
        return result
    } catch {
        await listener.shutdown()
        throw error
    }
}

func decodeEcho(_ bytes: [UInt8]) throws -> EchoResponder.Echo {
    try JSONDecoder().decode(EchoResponder.Echo.self, from: Data(bytes))
}
