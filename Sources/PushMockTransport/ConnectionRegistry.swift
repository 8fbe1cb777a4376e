import NIOCore
import Synchronization

/// The open connections of one listener: counted for metrics, told to quiesce on shutdown, closed
/// when the grace period is over.
final class ConnectionRegistry: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        /// Open connections by client address (only with a per-client cap).
        var byClient: [String: Int] = [:]
        var waiters: [CheckedContinuation<Void, Never>] = []
        var closed = false
    }

    /// Why `register` refused a connection.
    enum Admission: Equatable {
        case admitted
        /// `limit` connections are open already.
        case overCap
        /// `perClient` connections from the same address are open already.
        case overClientCap
        /// The listener is shutting down (`close()` was called).
        case closed
    }

    private let state = Mutex(State())
    private static let nextID = Atomic<UInt64>(0)

    /// A new process-unique connection id.
    static func makeConnectionID() -> UInt64 {
        nextID.add(1, ordering: .relaxed).newValue
    }

    /// Open connections.
    var count: Int { state.withLock { $0.channels.count } }

    /// Tracks `channel` until it closes, unless `limit` connections are open already or the
    /// registry is closed: then it does not track it (the caller closes it).
    func register(
        _ channel: any Channel, limit: Int? = nil, perClient: Int? = nil, onClose: @escaping @Sendable () -> Void = {}
    ) -> Admission {
        let key = ObjectIdentifier(channel)
        let client = perClient == nil ? nil : channel.remoteAddress?.ipAddress
        let admission = state.withLock { state -> Admission in
            if state.closed { return .closed }
            if let limit, state.channels.count >= limit { return .overCap }
            if let perClient, let client {
                let open = state.byClient[client, default: 0]
                if open >= perClient { return .overClientCap }
                state.byClient[client] = open + 1
            }
            state.channels[key] = channel
            return .admitted
        }
        guard admission == .admitted else { return admission }
        channel.closeFuture.whenComplete { _ in
            onClose()
            let waiters = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.channels[key] = nil
                if let client, let open = state.byClient[client] {
                    state.byClient[client] = open > 1 ? open - 1 : nil
                }
                guard state.channels.isEmpty else { return [] }
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        return .admitted
    }

    /// Admits no more connections and returns every open one. A connection accepted before its
    /// listener closed can reach `register` after that (NIO initializes accepted channels on their
    /// own event loop); it is refused, so the list returned here is complete for good, and a
    /// shutdown that closes it can wait until the registry is empty.
    func close() -> [any Channel] {
        state.withLock { state in
            state.closed = true
            return Array(state.channels.values)
        }
    }

    /// Returns when no connection is open.
    func waitUntilEmpty() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if state.channels.isEmpty { return true }
                state.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
