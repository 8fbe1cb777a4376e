public import NIOCore

/// Answers requests synchronously on the connection's event loop: the hot path of PushMock.
///
/// `respond(to:context:)` runs inside the transport's read loop, so it must not block. It returns
/// either a response right away, a future for a response completed later on the event loop (for
/// injected delays and waits), or a stream reset.
///
/// ```swift
/// struct Hello: HTTPResponder {
///     func respond(to request: HTTPServerRequest, context: RequestContext) -> ResponderResult {
///         .response(.json(status: 200, #"{"hello":"world"}"#))
///     }
/// }
/// ```
public protocol HTTPResponder: Sendable {
    /// Answers one complete request.
    func respond(to request: HTTPServerRequest, context: RequestContext) -> ResponderResult

    /// The HTTP/2 SETTINGS a new connection starts with. Defaults to `defaults`.
    func http2Settings(for connection: ConnectionInfo, defaults: HTTP2Settings) -> HTTP2Settings

    /// Called on the event loop when a connection has chosen its protocol.
    func connectionOpened(_ connection: ConnectionInfo)

    /// Called on the event loop when a connection closed.
    func connectionClosed(_ connection: ConnectionInfo)

    /// Called on the event loop when a TCP connection was accepted (before TLS or any protocol):
    /// what `pushmock_connections_active` counts.
    func connectionAccepted()

    /// Called when a connection that ``connectionAccepted()`` announced has closed.
    func connectionReleased()

    /// Called when the transport dropped something before a complete request existed (a protocol
    /// error, a flood, a TLS failure), so that it can be counted rather than lost silently.
    func transportEvent(_ event: TransportEvent, connection: ConnectionInfo?)
}

extension HTTPResponder {
    public func http2Settings(for connection: ConnectionInfo, defaults: HTTP2Settings) -> HTTP2Settings { defaults }
    public func connectionOpened(_ connection: ConnectionInfo) {}
    public func connectionClosed(_ connection: ConnectionInfo) {}
    public func connectionAccepted() {}
    public func connectionReleased() {}
    public func transportEvent(_ event: TransportEvent, connection: ConnectionInfo?) {}
}

/// What a responder does with a request.
public enum ResponderResult: Sendable {
    /// Send this response now.
    case response(HTTPServerResponse)
    /// Send the response this future completes with (a failed future resets the stream with
    /// INTERNAL_ERROR on HTTP/2 and closes the connection on HTTP/1.1).
    case deferred(EventLoopFuture<HTTPServerResponse>)
    /// Reset the HTTP/2 stream with this error code (HTTP/1.1: close the connection).
    case resetStream(HTTP2ErrorCode)
    /// Send this head now (its body, if any, first), then call `start` on the event loop with a
    /// writer for the rest of the body, until it finishes or the client goes away (Server-Sent
    /// Events). HTTP/1.1 only: on HTTP/2 the transport answers 505 with a JSON error instead.
    case stream(HTTPServerResponse, start: @Sendable (ResponseBodyWriter) -> Void)
}

/// The per-request view of the connection a responder gets.
public struct RequestContext {
    /// The connection the request arrived on.
    public let connection: ConnectionInfo
    /// The connection's event loop, for deferred responses.
    public let eventLoop: any EventLoop
    /// Per-connection controls (SETTINGS, GOAWAY, close). Use only on `eventLoop`.
    public let control: ConnectionControl

    /// Creates a context (the transport does this).
    public init(connection: ConnectionInfo, eventLoop: any EventLoop, control: ConnectionControl) {
        self.connection = connection
        self.eventLoop = eventLoop
        self.control = control
    }
}

/// Things that happened below the request level.
public enum TransportEvent: String, Sendable, Hashable, CaseIterable {
    /// The client broke HTTP/2 framing rules; the connection got GOAWAY.
    case http2ProtocolError = "http2_protocol_error"
    /// The client flooded the connection (rapid resets, CONTINUATION or SETTINGS floods).
    case http2Flood = "http2_flood"
    /// A stream was refused or reset by HTTP/2 message checks (bad pseudo-headers, uppercase names…).
    case http2InvalidStream = "http2_invalid_stream"
    /// A stream was refused with REFUSED_STREAM (over the advertised MAX_CONCURRENT_STREAMS, for
    /// example a client that bursts before reading the server's SETTINGS); clients may retry it.
    case http2StreamRefused = "http2_stream_refused"
    /// An HTTP/1.1 request could not be parsed.
    case http1ParseError = "http1_parse_error"
    /// The TLS handshake failed.
    case tlsHandshakeFailed = "tls_handshake_failed"
    /// The client was idle past the idle timeout and got GOAWAY.
    case idleTimeout = "idle_timeout"
    /// A connection accepted over the connection cap was closed at once.
    case connectionOverCap = "connection_over_cap"
    /// A connection did not finish its handshake or show its protocol in time and was closed.
    case protocolDeadline = "protocol_deadline"
    /// A request's header list was over the limit: 431 on HTTP/2 (stream), 431 and close on HTTP/1.1.
    case headerListTooLarge = "header_list_too_large"
    /// A request body was over the limit: 413, then the stream reset (HTTP/2) or the connection
    /// closed (HTTP/1.1), so the rest is never read.
    case bodyTooLarge = "body_too_large"
}

/// An HTTP/2 error code (RFC 9113 §7).
public struct HTTP2ErrorCode: RawRepresentable, Sendable, Hashable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let noError = HTTP2ErrorCode(rawValue: 0x0)
    public static let protocolError = HTTP2ErrorCode(rawValue: 0x1)
    public static let internalError = HTTP2ErrorCode(rawValue: 0x2)
    public static let flowControlError = HTTP2ErrorCode(rawValue: 0x3)
    public static let refusedStream = HTTP2ErrorCode(rawValue: 0x7)
    public static let cancel = HTTP2ErrorCode(rawValue: 0x8)
    public static let enhanceYourCalm = HTTP2ErrorCode(rawValue: 0xB)
}
