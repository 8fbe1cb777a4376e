/// Per-connection operations a responder may need (DESIGN.md: the APNs stream limit until the first
/// valid token, GOAWAY with a JSON debug payload). Valid only on the connection's event loop.
public struct ConnectionControl {
    private let target: (any ConnectionControlTarget)?
    /// The stream of the request this control was handed with (HTTP/2).
    private let stream: Int32?

    init(target: any ConnectionControlTarget, stream: Int32? = nil) {
        self.target = target
        self.stream = stream
    }

    /// A control that does nothing (for tests of responders).
    public static var none: ConnectionControl { ConnectionControl() }

    private init() {
        self.target = nil
        self.stream = nil
    }

    /// Advertises a new `SETTINGS_MAX_CONCURRENT_STREAMS` (HTTP/2 only; a no-op on HTTP/1.1).
    public func setMaxConcurrentStreams(_ value: UInt32) {
        target?.setMaxConcurrentStreams(value)
    }

    /// The `SETTINGS_MAX_CONCURRENT_STREAMS` last advertised (HTTP/1.1: 1).
    public var maxConcurrentStreams: UInt32 {
        target?.currentMaxConcurrentStreams ?? 1
    }

    /// Sends GOAWAY with `errorCode` and `debugData`, lets streams already accepted finish, then
    /// closes. On HTTP/1.1 the connection closes after the current response.
    public func goAway(errorCode: HTTP2ErrorCode = .noError, debugData: [UInt8] = []) {
        target?.goAway(errorCode: errorCode, debugData: debugData, afterStream: nil)
    }

    /// Sends GOAWAY as ``goAway(errorCode:debugData:)`` does, but only once this request's answer
    /// (its HEADERS and DATA) is sent or its stream is reset: a client then reads the answer before
    /// it learns the connection is going away (a strict client, such as Python's h2, refuses frames
    /// on a stream after a GOAWAY). On HTTP/1.1 the connection closes after the current response.
    public func goAwayAfterAnswer(errorCode: HTTP2ErrorCode = .noError, debugData: [UInt8] = []) {
        target?.goAway(errorCode: errorCode, debugData: debugData, afterStream: stream)
    }

    /// Leaves `work` for after this request's answer: it runs on the connection's event loop once
    /// the answer has been written and flushed (or the connection has closed), in the order left,
    /// and counted in the listener's ``AnswerLanes``. Work left while it is the last left is not
    /// left twice (it runs once and does all it holds). With ``none``, it runs at once.
    public func afterAnswer(_ work: any AfterAnswerWork) {
        guard let target else { return work.runAfterAnswer() }
        target.afterAnswers.append(work)
    }

    /// Leaves `work` for after this request's answer, as ``afterAnswer(_:)-(AfterAnswerWork)`` does.
    public func afterAnswer(_ work: @escaping () -> Void) {
        afterAnswer(AfterAnswerClosure(work))
    }

    /// Per-connection storage for the layer above the transport (for example an APNs auth binding).
    /// Lives as long as the connection.
    public var storage: ConnectionStorage? { target?.storage }
}

/// A box for one object the layer above the transport keeps per connection. Only the connection's
/// event loop touches it, never with overlapping accesses, so it skips the runtime's exclusivity
/// checks.
public final class ConnectionStorage {
    /// The stored object.
    public var value: AnyObject? {
        get { stored }
        set { stored = newValue }
    }

    // Read and written through `value`'s accessors, compiled here: another module's direct
    // access to a stored property is checked for exclusivity whatever the attribute says.
    @exclusivity(unchecked) private var stored: AnyObject?

    init() {}
}

/// Implemented by the protocol handlers.
protocol ConnectionControlTarget: AnyObject {
    func setMaxConcurrentStreams(_ value: UInt32)
    var currentMaxConcurrentStreams: UInt32 { get }
    /// GOAWAY now (`afterStream` nil) or once that stream is closed.
    func goAway(errorCode: HTTP2ErrorCode, debugData: [UInt8], afterStream: Int32?)
    var storage: ConnectionStorage { get }
    /// Work left for after answers, run by the handler once they are flushed.
    var afterAnswers: AfterAnswerQueue { get }
}

/// A closure left for after an answer.
final class AfterAnswerClosure: AfterAnswerWork {
    private let work: () -> Void

    init(_ work: @escaping () -> Void) {
        self.work = work
    }

    func runAfterAnswer() { work() }
}
