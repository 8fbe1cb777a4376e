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
    /// How long a turn waits for its push to be answered before it gives the activity back, unless
    /// told (``connect(_:retention:retentionAge:queueLimit:writePatience:connectPatience:readerPatience:turnPatience:eventLoopGroup:sharedCleanupEvery:logger:)``).
    /// A bound for a push that never finishes, not for a slow one: on a loaded machine a push can
    /// take seconds between reading its activities and saving them (5 s was passed in CI). A push
    /// that finishes after its turn was given up is rebased on what the fleet saved meanwhile
    /// (``ActivityTurn/finish(_:rebase:)``).
    public static let defaultTurnPatience: Duration = .seconds(30)

    /// Where a turn's transaction is: waiting for its push, handed what it changed, or given up
    /// (its patience ran out, or the database failed), when what the push changed is rebased in a
    /// new turn.
    private enum TurnProgress {
        case waiting, handedOver, givenUp
    }

    public func turn(_ keys: [String], since: [String: String]) async throws -> ActivityTurn {
        let scope = TurnScope(keys: keys, since: since)
        let (logger, instance, patience) = (logger, instance, turnPatience)
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
                        let saved = try await scope.take(on: connection, logger: logger)
                        read.resume(.success(saved))
                        // The push is answered meanwhile; a turn never outlives its patience.
                        let patience = Task {
                            try? await Task.sleep(for: patience)
                            if giveUp() { endedContinuation.yield(nil) }
                        }
                        var iterator = ended.makeAsyncIterator()
                        let after = await iterator.next() ?? nil
                        patience.cancel()
                        guard let after else { return }
                        let changes = after.filter { scope.covers($0.key) }
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
        return ActivityTurn(snapshots: found) { [logger] changes, rebase in
            let handedOver = progress.withLock { state -> Bool in
                guard state == .waiting else { return false }
                state = .handedOver
                return true
            }
            if handedOver {
                endedContinuation.yield(changes)
                return true
            }
            // The turn was given up before the push finished: others may have saved the
            // activities since, so what it changed is rebased on what they saved, in a new turn.
            // A turn dropped unfinished (or ended with nothing to write) has nothing to rebase.
            if changes.isEmpty, rebase == nil { return false }
            logger.notice(
                "a Live Activity push finished after its turn was given up (the database failed, or \(patience.components.seconds) s passed): what it changed is rebased on what the fleet saved meanwhile",
                metadata: ["keys": "\(scope.keys.joined(separator: ","))"])
            Task { await self.retake(scope, changes: changes, rebase: rebase) }
            return false
        }
    }

    /// Writes what a push changed after its turn was given up: in a new turn, rebased on the
    /// snapshots as the fleet saved them (the activities' heads and every entry of them). When the
    /// database cannot be reached, written behind as any snapshot (never dropped), though without
    /// the turn's order.
    private func retake(_ scope: TurnScope, changes: [(key: String, value: [UInt8])], rebase: ActivityTurn.Rebase?) async {
        let (logger, instance) = (logger, instance)
        let rebased = Mutex<[(key: String, value: [UInt8])]?>(nil)
        do {
            try await client.withConnection { connection in
                try await connection.withTransaction(logger: logger) { connection in
                    let fleet = try await scope.whole.take(on: connection, logger: logger)
                    let writes = (rebase?(changes, fleet) ?? changes).filter { scope.covers($0.key) }
                    rebased.withLock { $0 = writes }
                    try await Self.write(writes, instance: instance, on: connection, logger: logger)
                }
            }
            let written: [(key: String, value: [UInt8])] = rebased.withLock { $0 } ?? []
            snapshots.withLock { snapshots in
                for (key, value) in written { snapshots.values[key] = value.isEmpty ? nil : value }
            }
        } catch {
            logger.warning(
                "a Live Activity push that finished after its turn was given up could not take a new one (\(Self.describe(error))): what it changed is written without the fleet's order",
                metadata: ["keys": "\(scope.keys.joined(separator: ","))"])
            // Rebased already (the write failed), or the rebase is told that it cannot be.
            let unwritten: [(key: String, value: [UInt8])]
            if let done = rebased.withLock({ $0 }) {
                unwritten = done
            } else {
                _ = rebase?(changes, nil)
                unwritten = changes
            }
            for (key, value) in unwritten { archive(key, value) }
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

/// What one turn holds: its activities' keys, and the entries of their timelines from a bound on.
private struct TurnScope: Sendable {
    let keys: [String]
    let prefixes: [String]
    let bounds: [String]
    /// Past every key with the prefix, in byte order (the keys' index is in collation "C").
    let ends: [String]

    init(keys: [String], since: [String: String]) {
        self.keys = Array(Set(keys)).sorted()
        prefixes = since.keys.sorted()
        bounds = prefixes.map { since[$0]! }
        ends = prefixes.map { $0 + "\u{10FFFF}" }
    }

    /// The same activities, every entry of them.
    var whole: TurnScope {
        TurnScope(keys: keys, since: Dictionary(uniqueKeysWithValues: prefixes.map { ($0, $0) }))
    }

    /// Whether a turn over this scope writes `key`.
    func covers(_ key: String) -> Bool {
        keys.contains(key) || prefixes.contains { key.hasPrefix($0) }
    }

    /// Takes the activities' locks for the transaction, then reads their saved snapshots, and
    /// those of every key past its prefix's bound.
    func take(on connection: PostgresConnection, logger: Logger) async throws -> [String: [UInt8]] {
        // One lock per distinct hash, taken in hash order: two turns over shared activities never
        // wait for each other.
        try await connection.query(
            "SELECT pg_advisory_xact_lock(\(PostgresDeliveryStore.activityLock), h) FROM (SELECT DISTINCT hashtext(k) AS h FROM unnest(\(keys)::text[]) AS k ORDER BY h) AS locks",
            logger: logger)
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
}
