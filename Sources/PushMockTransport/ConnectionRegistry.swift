import NIOCore
import Synchronization

/// The open connections of one listener: counted for metrics, told to quiesce on shutdown, closed
/// when the grace period is over.
final class ConnectionRegistry: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private static let nextID = Atomic<UInt64>(0)

    /// A new process-unique connection id.
    static func makeConnectionID() -> UInt64 {
        nextID.add(1, ordering: .relaxed).newValue
    }

    /// Open connections.
    var count: Int { state.withLock { $0.channels.count } }

    /// Tracks `channel` until it closes, unless `limit` connections are open already: then it
    /// returns false and does not track it (the caller closes it).
    func register(_ channel: any Channel, limit: Int? = nil, onClose: @escaping @Sendable () -> Void = {}) -> Bool {
        let key = ObjectIdentifier(channel)
        let admitted = state.withLock { state -> Bool in
            if let limit, state.channels.count >= limit { return false }
            state.channels[key] = channel
            return true
        }
        guard admitted else { return false }
        channel.closeFuture.whenComplete { _ in
            onClose()
            let waiters = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.channels[key] = nil
                guard state.channels.isEmpty else { return [] }
                defer { state.waiters = [] }
                return state.waiters
            }
            waiters.forEach { $0.resume() }
        }
        return true
    }

    /// Every open channel.
    var channels: [any Channel] { state.withLock { Array($0.channels.values) } }

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
