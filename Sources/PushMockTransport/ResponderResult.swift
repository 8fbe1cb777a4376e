/// What a responder does with a request.
public enum ResponderResult: Sendable {
    /// Send this response now.
    case response(HTTPServerResponse)
    /// Send this response after `delay` (an injected latency), from the connection's event loop;
    /// `answered` is called then (also when the client has gone meanwhile). The transport is the
    /// one place that waits.
    case delayed(HTTPServerResponse, by: Duration, answered: (@Sendable () -> Void)? = nil)
    /// Send what `deferred` is completed with, whenever that happens (a failed one resets the
    /// stream with INTERNAL_ERROR on HTTP/2 and closes the connection on HTTP/1.1).
    case deferred(DeferredResponse)
    /// Reset the HTTP/2 stream with this error code (HTTP/1.1: close the connection).
    case resetStream(HTTP2ErrorCode)
    /// Send this head now (its body, if any, first), then call `start` with a writer for the rest
    /// of the body, until it finishes or the client goes away (Server-Sent Events). HTTP/1.1 only:
    /// on HTTP/2 the transport answers 505 with a JSON error instead.
    case stream(HTTPServerResponse, start: @Sendable (ResponseBodyWriter) -> Void)
    /// Answer once `work` has finished (off the event loop): then `respond` is called on the
    /// connection's event loop with a fresh context, as `respond(to:context:)` would be, and what
    /// it returns is handled the same way. For a request whose answer depends on something only an
    /// asynchronous call can tell (a fleet-wide claim), with the connection's state touched only
    /// on its loop.
    case resumed(ResponderResumption)
}

/// The two halves of a ``ResponderResult/resumed(_:)`` answer.
public struct ResponderResumption: Sendable {
    /// Runs first, on no particular thread.
    public var work: @Sendable () async -> Void
    /// Runs next, on the connection's event loop (not at all if the connection is gone).
    public var respond: @Sendable (RequestContext) -> ResponderResult

    public init(work: @escaping @Sendable () async -> Void, respond: @escaping @Sendable (RequestContext) -> ResponderResult) {
        self.work = work
        self.respond = respond
    }
}
