import Logging
import NIOCore
import PostgresNIO
public import PushMockStore
import Synchronization

/// Pushes to Live Activities, ordered for the fleet: a transaction holds an advisory lock on each
/// activity a push reaches (namespace "PMac", the key's hash; a broadcast reaches several) from
/// reading their snapshots until what the push changed is written and announced, so a push
/// through another instance sees it.
extension PostgresDeliveryStore: FleetActivityOrder {
    /// The advisory-lock namespace of activities ("PMac").
    static let activityLock: Int32 = 0x504D_6163
    /// How long a turn waits for its push to be answered before it gives the activity back. A
    /// bound for a push that never finishes, not for a slow one: on a loaded machine a push can
    /// take seconds between reading its activities and saving them (5 s was passed in CI).
    static let turnPatience: Duration = .seconds(30)

    /// Where a turn's transaction is: waiting for its push, handed what it changed, or given up
    /// (its patience ran out, or the database failed), when what the push changed is written behind.
    private enum TurnProgress {
        case waiting, handedOver, givenUp
    }

    public func turn(_ keys: [String], since: [String: String]) async throws -> ActivityTurn {
        let keys = Array(Set(keys)).sorted()
        let prefixes = since.keys.sorted()
        let bounds = prefixes.map { since[$0]! }
        // Past every key with the prefix, in byte order (the keys' index is in collation "C").
        let ends = prefixes.map { $0 + "\u{10FFFF}" }
        let (logger, instance) = (logger, instance)
        let (ended, endedContinuation) = AsyncStream<[(key: String, value: [UInt8])]?>.makeStream()
        let read = ReadSignal()
        let written = Mutex<[(key: String, value: [UInt8])]>([])
        let progress = Mutex(TurnProgress.waiting)
        /// Gives the turn up, unless the push already handed over what it changed; whether it did.
        let giveUp: @Sendable () -> Bool = {
            progress.withLock { state -> Bool in
                guard state == .waiting else { return false }
                state = .givenUp
                return true
            }
        }
        Task {
            do {
                try await client.withConnection { connection in
                    try await connection.withTransaction(logger: logger) { connection in
                        // One lock per distinct hash, taken in hash order: two turns over shared
                        // activities never wait for each other.
                        try await connection.query(
                            "SELECT pg_advisory_xact_lock(\(Self.activityLock), h) FROM (SELECT DISTINCT hashtext(k) AS h FROM unnest(\(keys)::text[]) AS k ORDER BY h) AS locks",
                            logger: logger)
                        let saved = try await Self.snapshots(
                            keys: keys, prefixes: prefixes, bounds: bounds, ends: ends, on: connection, logger: logger)
                        read.resume(.success(saved))
                        // The push is answered meanwhile; a turn never outlives its patience.
                        let patience = Task {
                            try? await Task.sleep(for: Self.turnPatience)
                            if giveUp() { endedContinuation.yield(nil) }
                        }
                        var iterator = ended.makeAsyncIterator()
                        let after = await iterator.next() ?? nil
                        patience.cancel()
                        guard let after else { return }
                        let changes = after.filter { change in keys.contains(change.key) || prefixes.contains { change.key.hasPrefix($0) } }
                        written.withLock { $0 = changes }
                        try await Self.write(changes, instance: instance, on: connection, logger: logger)
                        snapshots.withLock { snapshots in
                            for (key, value) in changes { snapshots.values[key] = value.isEmpty ? nil : value }
                        }
                        written.withLock { $0 = [] }
                    }
                }
            } catch {
                read.resume(.failure(error))
                // What the push changed is never lost: written behind, as any snapshot, once the
                // database answers (and, if the push has not finished yet, when it does: below).
                _ = giveUp()
                for (key, value) in written.withLock({ $0 }) { archive(key, value) }
            }
        }
        let found = try await read.value
        return ActivityTurn(snapshots: found) { [logger] changes in
            let handedOver = progress.withLock { state -> Bool in
                guard state == .waiting else { return false }
                state = .handedOver
                return true
            }
            if handedOver {
                endedContinuation.yield(changes)
                return
            }
            // The turn was given up before the push finished: what it changed is written behind,
            // never dropped, though without the turn's order.
            logger.warning(
                "a Live Activity push finished after its turn was given up (the database failed, or \(Self.turnPatience.components.seconds) s passed): what it changed is written without the fleet's order",
                metadata: ["keys": "\(keys.joined(separator: ","))"])
            for (key, value) in changes { self.archive(key, value) }
        }
    }

    /// The saved snapshots of `keys`, and of every key past its prefix's bound.
    private static func snapshots(
        keys: [String], prefixes: [String], bounds: [String], ends: [String], on connection: PostgresConnection, logger: Logger
    ) async throws -> [String: [UInt8]] {
        var saved: [String: [UInt8]] = [:]
        let rows = try await connection.query("SELECT key, value FROM pushmock_state WHERE key = ANY(\(keys))", logger: logger)
        for try await (key, bytes) in rows.decode((String, ByteBuffer).self) {
            saved[key] = Array(bytes.readableBytesView)
        }
        if !prefixes.isEmpty {
            let newer = try await connection.query(
                #"SELECT s.key, s.value FROM pushmock_state s JOIN unnest(\#(bounds)::text[], \#(ends)::text[]) AS b(low, high) ON s.key COLLATE "C" >= b.low AND s.key COLLATE "C" < b.high"#,
                logger: logger)
            for try await (key, bytes) in newer.decode((String, ByteBuffer).self) {
                saved[key] = Array(bytes.readableBytesView)
            }
        }
        return saved
    }

    /// What a push changed, written (an empty value deletes) and announced to the fleet.
    private static func write(
        _ changes: [(key: String, value: [UInt8])], instance: String, on connection: PostgresConnection, logger: Logger
    ) async throws {
        for (key, value) in changes {
            if value.isEmpty {
                try await connection.query("DELETE FROM pushmock_state WHERE key = \(key)", logger: logger)
            } else {
                try await connection.query(
                    "INSERT INTO pushmock_state (key, value) VALUES (\(key), \(ByteBuffer(bytes: value))) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    logger: logger)
            }
            try await connection.query("SELECT pg_notify(\(Self.channel), \("s \(instance) \(key)"))", logger: logger)
        }
    }
}

/// The snapshots a turn read, handed from the transaction's task to the waiting push (once).
private final class ReadSignal: Sendable {
    private let state = Mutex<(result: Result<[String: [UInt8]], any Error>?, waiter: CheckedContinuation<[String: [UInt8]], any Error>?)>((nil, nil))

    func resume(_ result: Result<[String: [UInt8]], any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<[String: [UInt8]], any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }

    var value: [String: [UInt8]] {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { state -> Result<[String: [UInt8]], any Error>? in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }
}
