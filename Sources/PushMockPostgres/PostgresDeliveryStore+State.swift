import Foundation
import NIOCore
import PostgresNIO
import PushMockStore
import Synchronization

/// Server state shared by the fleet (devices, faults, channels), as snapshots by key, and the one
/// listening connection that tells this instance about other instances' commits and snapshots.
extension PostgresDeliveryStore {
    public func archived(_ key: String) throws -> [UInt8]? {
        snapshots.withLock { $0.values[key] }
    }

    public func archived(prefix: String) throws -> [String: [UInt8]] {
        snapshots.withLock { $0.values.filter { $0.key.hasPrefix(prefix) } }
    }

    public func archive(_ key: String, _ value: [UInt8]) {
        // Pending before the lock is let go: what the fleet saved is never taken over this.
        snapshots.withLock { snapshots in
            snapshots.values[key] = value.isEmpty ? nil : value
            snapshotQueue.withLock { queue in
                queue.pending[key] = value
                guard queue.writer == nil else { return }
                queue.writer = Task { await self.writeSnapshots() }
            }
        }
    }

    /// `observer` is told of every snapshot another instance saves from now on, and at once of
    /// those saved since the store opened (which the caller may have read before or after they
    /// changed): no change is lost between a caller's first read and its observing.
    public func observeState(_ observer: @escaping @Sendable (String, [UInt8]) -> Void) {
        let missed = snapshots.withLock { snapshots -> Set<String> in
            snapshots.observer = SnapshotObserver(call: observer)
            defer { snapshots.unobserved = [] }
            return snapshots.unobserved
        }
        for key in missed.sorted() { tell(key) }
    }

    /// Reads every snapshot and takes what the fleet saved in place of what this instance knew,
    /// except where a snapshot of its own is still being written (it is newer). Each key that
    /// changed is told to the observer. Run at start and whenever the listener (re)starts, since
    /// notifications may have been missed before it listened.
    func resyncSnapshots() async throws {
        var saved: [String: [UInt8]] = [:]
        for try await (key, value) in try await client.query("SELECT key, value FROM pushmock_state").decode((String, ByteBuffer).self) {
            saved[key] = Array(value.readableBytesView)
        }
        let changed = snapshots.withLock { snapshots -> [String] in
            let pending = snapshotQueue.withLock { Set($0.pending.keys) }
            var changed: [String] = []
            for key in Set(saved.keys).union(snapshots.values.keys) where !pending.contains(key) && saved[key] != snapshots.values[key] {
                snapshots.values[key] = saved[key]
                changed.append(key)
            }
            return changed
        }
        for key in changed.sorted() { tell(key) }
    }

    /// Hands `key`'s snapshot as it is now to the observer, or keeps the key for the observer to
    /// come. One at a time, and each reads the value when it is its turn, so the last call for a
    /// key always carries its newest snapshot.
    private func tell(_ key: String) {
        observerCalls.withLock { _ in
            let (observer, value) = snapshots.withLock { snapshots -> (SnapshotObserver?, [UInt8]) in
                if snapshots.observer == nil { snapshots.unobserved.insert(key) }
                return (snapshots.observer, snapshots.values[key] ?? [])
            }
            observer?.call(key, value)
        }
    }

    /// Writes the newest snapshots until none is waiting, each with a notification to the fleet.
    private func writeSnapshots() async {
        while true {
            let batch = snapshotQueue.withLock { queue -> [String: [UInt8]] in
                defer { queue.pending = [:] }
                if queue.pending.isEmpty { queue.writer = nil }
                return queue.pending
            }
            if batch.isEmpty || Task.isCancelled { return }
            do {
                let (logger, instance) = (logger, instance)
                try await client.withConnection { connection in
                    try await connection.withTransaction(logger: logger) { connection in
                        try await Self.write(batch.map { ($0.key, $0.value) }, instance: instance, on: connection, logger: logger)
                    }
                }
            } catch {
                // Kept for the next round unless a newer snapshot replaced it meanwhile.
                snapshotQueue.withLock { queue in
                    for (key, value) in batch where queue.pending[key] == nil { queue.pending[key] = value }
                }
                queue.noteFailure(Self.describe(error))
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    /// Snapshots written (an empty value deletes its key), each announced to the fleet.
    static func write(_ changes: [(key: String, value: [UInt8])], instance: String, on connection: PostgresConnection, logger: Logger) async throws {
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

    /// Listens on ``channel`` until closed, reconnecting when the connection is lost. Each time it
    /// listens, it reads every snapshot again and wakes every wait, since commits and snapshots
    /// may have been missed before; then `ready` is finished (the first time only).
    func startListening(ready: WaitSignal? = nil) {
        let task = Task { [weak self] in
            var pause = 100
            while !Task.isCancelled {
                guard let self else { return }
                do {
                    try await self.client.withConnection { connection in
                        try await connection.listen(on: Self.channel) { notifications in
                            try await self.resyncSnapshots()
                            self.changes.signal()
                            ready?.finish(true)
                            pause = 100
                            for try await notification in notifications {
                                await self.notified(notification.payload)
                            }
                        }
                    }
                } catch {
                    if Task.isCancelled { return }
                    self.logger.warning("listening for the fleet's notifications failed; retrying", metadata: ["error": "\(Self.describe(error))"])
                }
                try? await Task.sleep(for: .milliseconds(pause))
                pause = min(2000, pause * 2)
            }
        }
        listenTask.withLock { $0 = task }
    }

    /// `d INSTANCE`: deliveries were committed. `s INSTANCE KEY`: a snapshot was saved.
    private func notified(_ payload: String) async {
        let parts = payload.split(separator: " ", maxSplits: 2).map(String.init)
        switch parts.first {
        case "d":
            changes.signal()
        case "s" where parts.count == 3 && parts[1] != instance:
            let key = parts[2]
            guard let rows = try? await client.query("SELECT value FROM pushmock_state WHERE key = \(key)") else { return }
            var value: [UInt8]?
            do {
                for try await bytes in rows.decode(ByteBuffer.self) { value = Array(bytes.readableBytesView) }
            } catch {
                return
            }
            // No row: the key was deleted (an empty snapshot to the observer). A snapshot of this
            // instance's own still being written is newer.
            let taken = snapshots.withLock { snapshots -> Bool in
                guard snapshotQueue.withLock({ $0.pending[key] == nil }) else { return false }
                snapshots.values[key] = value
                return true
            }
            if taken { tell(key) }
        default:
            break
        }
    }
}

/// The fleet's snapshots as this instance last read or wrote them, by key; who is told of the
/// fleet's changes; and the keys changed before anyone observed them.
struct SnapshotTable {
    var values: [String: [UInt8]] = [:]
    var observer: SnapshotObserver?
    var unobserved: Set<String> = []
}

/// Who is told of a snapshot change. A closure kept in a `Mutex` (alone, or in a tuple) and read
/// back with `withLock { $0 }` gains a reabstraction thunk on every read with Swift 6.3, so each
/// call gets slower than the last; kept in a struct, it does not.
struct SnapshotObserver: Sendable {
    let call: @Sendable (String, [UInt8]) -> Void
}
