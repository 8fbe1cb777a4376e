import NIOCore
import Synchronization

/// Writes the body of a streamed response (Server-Sent Events) after its head went out. Usable
/// from any thread: writes hop to the connection's event loop. HTTP/1.1 only.
///
/// ```swift
/// return .stream(HTTPServerResponse(status: 200, headers: [("content-type", "text/event-stream")])) { writer in
///     writer.onClose { /* stop producing */ }
///     writer.write(Array("data: hello\n\n".utf8))
/// }
/// ```
public final class ResponseBodyWriter: Sendable {
    /// The connection's event loop (never handed to the layer above).
    private let eventLoop: any EventLoop
    private let sink: @Sendable ([UInt8]?, _ written: @escaping @Sendable () -> Void) -> Void
    private let state = Mutex(State())
    private let pending = Atomic<Int>(0)

    private struct State {
        var closed = false
        var onClose: [@Sendable () -> Void] = []
    }

    /// Creates a writer whose `sink` gets each chunk on `eventLoop` (and nil to finish), and calls
    /// `written` once the chunk has left (or can no longer leave) the process.
    init(eventLoop: any EventLoop, sink: @escaping @Sendable ([UInt8]?, _ written: @escaping @Sendable () -> Void) -> Void) {
        self.eventLoop = eventLoop
        self.sink = sink
    }

    /// A writer whose client is already gone: a producer handed it stops at once and gives back
    /// what it took (an event-stream subscriber slot).
    static func closed(on eventLoop: any EventLoop) -> ResponseBodyWriter {
        let writer = ResponseBodyWriter(eventLoop: eventLoop) { _, written in written() }
        writer.closed()
        return writer
    }

    /// Bytes handed to ``write(_:)`` that the client has not taken yet: a reader that does not
    /// read lets this grow, and a producer can drop it (Server-Sent Events resume with Last-Event-ID).
    public var backlog: Int { pending.load(ordering: .relaxed) }

    /// Whether the client has gone away or the stream finished.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Sends `bytes` to the client (dropped once closed).
    public func write(_ bytes: [UInt8]) {
        guard !isClosed else { return }
        let sink = self.sink
        let count = bytes.count
        pending.add(count, ordering: .relaxed)
        eventLoop.execute { sink(bytes) { self.pending.subtract(count, ordering: .relaxed) } }
    }

    /// Ends the response; the connection closes after it.
    public func finish() {
        guard !isClosed else { return }
        let sink = self.sink
        eventLoop.execute { sink(nil) {} }
        closed()
    }

    /// Calls `callback` once when the client goes away or the stream finishes (at once if it
    /// already has).
    public func onClose(_ callback: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.closed { return true }
            state.onClose.append(callback)
            return false
        }
        if runNow { callback() }
    }

    /// The transport reports the connection closed.
    package func closed() {
        let callbacks = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.closed else { return [] }
            state.closed = true
            defer { state.onClose = [] }
            return state.onClose
        }
        for callback in callbacks { callback() }
    }
}
