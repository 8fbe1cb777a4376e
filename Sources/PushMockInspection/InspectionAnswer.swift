/// What the inspection port does with a request: answer, or stream events.
public enum InspectionAnswer: Sendable {
    /// Send this response.
    case response(InspectionResponse)
    /// Send this head, then hand a sink to `start`, which writes the body until the client goes
    /// away (Server-Sent Events; HTTP/1.1 only).
    case stream(InspectionResponse, start: @Sendable (any EventSink) -> Void)

    /// The response, or the head of a stream.
    public var head: InspectionResponse {
        switch self {
        case .response(let response), .stream(let response, _): return response
        }
    }
}

/// Where a streamed body goes (the server adapts its transport's writer). Usable from any thread.
public protocol EventSink: AnyObject, Sendable {
    /// Sends `bytes` (dropped once closed).
    func write(_ bytes: [UInt8])
    /// Ends the body; the connection closes after it.
    func finish()
    /// Calls `callback` once when the client goes away or the body finished (at once if it has).
    func onClose(_ callback: @escaping @Sendable () -> Void)
    /// Whether the client went away or the body finished.
    var isClosed: Bool { get }
    /// Bytes written that the client has not taken yet.
    var backlog: Int { get }
}
