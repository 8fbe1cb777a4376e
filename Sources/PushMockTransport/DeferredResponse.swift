import Synchronization

/// A response that is completed later, from any thread: the answer to a long-poll wait, or to a
/// control-plane request served by async code. Completed once; later completions are ignored.
///
/// ```swift
/// let answer = DeferredResponse()
/// Task { answer.succeed(await slowAnswer()) }
/// return .deferred(answer)
/// ```
public final class DeferredResponse: Sendable {
    /// What a deferred response ends with.
    public enum Completion: Sendable {
        /// Send this response.
        case response(HTTPServerResponse)
        /// Stream a body after this head (see ``ResponderResult/stream(_:start:)``).
        case stream(HTTPServerResponse, start: @Sendable (ResponseBodyWriter) -> Void)
        /// Reset the stream (HTTP/2) or close the connection (HTTP/1.1).
        case failure
    }

    private enum State {
        case pending(handler: (@Sendable (Completion) -> Void)?)
        case completed(Completion?)
    }

    private let state = Mutex(State.pending(handler: nil))

    /// Creates a pending response.
    public init() {}

    /// Sends `response`.
    public func succeed(_ response: HTTPServerResponse) {
        complete(.response(response))
    }

    /// Streams a body after `head`.
    public func stream(_ head: HTTPServerResponse, start: @escaping @Sendable (ResponseBodyWriter) -> Void) {
        complete(.stream(head, start: start))
    }

    /// Gives up: the stream is reset, or the HTTP/1.1 connection closed.
    public func fail() {
        complete(.failure)
    }

    /// Completes once; the first completion wins.
    public func complete(_ completion: Completion) {
        let handler = state.withLock { state -> (@Sendable (Completion) -> Void)? in
            switch state {
            case .completed:
                return nil
            case .pending(let handler):
                if let handler {
                    state = .completed(nil)
                    return handler
                }
                state = .completed(completion)
                return nil
            }
        }
        handler?(completion)
    }

    /// The transport's side: `handler` gets the completion once (at once if it is already there).
    package func whenComplete(_ handler: @escaping @Sendable (Completion) -> Void) {
        let ready = state.withLock { state -> Completion? in
            switch state {
            case .pending:
                state = .pending(handler: handler)
                return nil
            case .completed(let completion):
                state = .completed(nil)
                return completion
            }
        }
        if let ready { handler(ready) }
    }
}
