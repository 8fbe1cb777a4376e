/// Answers requests synchronously on the connection's event loop: the hot path of PushMock.
///
/// `respond(to:context:)` runs inside the transport's read loop, so it must not block. It returns
/// a response right away, a response to send after a delay, a ``DeferredResponse`` completed later
/// from any thread (a long-poll wait), a stream reset, or a streamed body. No NIO type crosses this
/// seam (DESIGN.md: NIO ends at the transport).
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
