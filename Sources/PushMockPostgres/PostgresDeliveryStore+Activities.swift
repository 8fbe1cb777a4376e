import NIOCore
import PostgresNIO
public import PushMockStore
import Synchronization

/// Pushes to one Live Activity, ordered for the fleet: a transaction holds an advisory lock on the
/// activity (namespace "PMac", the key's hash) from reading its snapshot until the new one is
/// written and announced, so a push through another instance sees it.
extension PostgresDeliveryStore: FleetActivityOrder {
    /// The advisory-lock namespace of activities ("PMac").
    static let activityLock: Int32 = 0x504D_6163
    /// How long a turn waits for its push to be answered before it gives the activity back.
    static let turnPatience: Duration = .seconds(5)

    public func turn(_ key: String) async throws -> ActivityTurn {
        let (logger, instance) = (logger, instance)
        let (ended, endedContinuation) = AsyncStream<[UInt8]?>.makeStream()
        let read = ReadSignal()
        Task {
            do {
                try await client.withConnection { connection in
                    try await connection.withTransaction(logger: logger) { connection in
                        try await connection.query("SELECT pg_advisory_xact_lock(\(Self.activityLock), hashtext(\(key)))", logger: logger)
                        var snapshot: [UInt8]?
                        for try await bytes in try await connection.query("SELECT value FROM pushmock_state WHERE key = \(key)", logger: logger).decode(ByteBuffer.self) {
                            snapshot = Array(bytes.readableBytesView)
                        }
                        read.resume(.success(snapshot))
                        // The push is answered meanwhile; a turn never outlives its patience.
                        let patience = Task {
                            try? await Task.sleep(for: Self.turnPatience)
                            endedContinuation.yield(nil)
                        }
                        var iterator = ended.makeAsyncIterator()
                        let after = await iterator.next() ?? nil
                        patience.cancel()
                        guard let after, !after.isEmpty else { return }
                        try await connection.query(
                            "INSERT INTO pushmock_state (key, value) VALUES (\(key), \(ByteBuffer(bytes: after))) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                            logger: logger)
                        try await connection.query("SELECT pg_notify(\(Self.channel), \("s \(instance) \(key)"))", logger: logger)
                        snapshots.withLock { $0.values[key] = after }
                    }
                }
            } catch {
                read.resume(.failure(error))
            }
        }
        let snapshot = try await read.value
        return ActivityTurn(snapshot: snapshot) { endedContinuation.yield($0) }
    }
}

/// The snapshot a turn read, handed from the transaction's task to the waiting push (once).
private final class ReadSignal: Sendable {
    private let state = Mutex<(result: Result<[UInt8]?, any Error>?, waiter: CheckedContinuation<[UInt8]?, any Error>?)>((nil, nil))

    func resume(_ result: Result<[UInt8]?, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<[UInt8]?, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }

    var value: [UInt8]? {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { state -> Result<[UInt8]?, any Error>? in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }
}
