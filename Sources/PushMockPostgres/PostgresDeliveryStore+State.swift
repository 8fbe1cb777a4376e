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
        snapshots.withLock { $0.values[key] = value.isEmpty ? nil : value }
        snapshotQueue.withLock { queue in
            queue.pending[key] = value
            guard queue.writer == nil else { return }
            queue.writer = Task { await self.writeSnapshots() }
        }
    }

    public func observeState(_ observer: @escaping @Sendable (String, [UInt8]) -> Void) {
        snapshots.withLock { $0.observer = SnapshotObserver(call: observer) }
    }

    /// Every snapshot, read once at start (`archived` answers from memory after that).
    func loadSnapshots() async throws {
        var values: [String: [UInt8]] = [:]
        for try await (key, value) in try await client.query("SELECT key, value FROM pushmock_state").decode((String, ByteBuffer).self) {
            values[key] = Array(value.readableBytesView)
        }
        snapshots.withLock { $0.values = values }
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

    /// Listens on ``channel`` until closed, reconnecting when the connection is lost (and then
    /// waking every wait, since commits may have been missed meanwhile).
    func startListening() {
        let task = Task { [weak self] in
            var pause = 100
            while !Task.isCancelled {
                guard let self else { return }
                do {
                    try await self.client.withConnection { connection in
                        try await connection.listen(on: Self.channel) { notifications in
                            self.changes.signal()
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
            // No row: the key was deleted (an empty snapshot to the observer).
            let observer = snapshots.withLock { snapshots in
                snapshots.values[key] = value
                return snapshots.observer
            }
            observer?.call(key, value ?? [])
        default:
            break
        }
    }
}

/// Who is told of a snapshot change. A closure kept in a `Mutex` (alone, or in a tuple) and read
/// back with `withLock { $0 }` gains a reabstraction thunk on every read with Swift 6.3, so each
/// call gets slower than the last; kept in a struct, it does not.
struct SnapshotObserver: Sendable {
    let call: @Sendable (String, [UInt8]) -> Void
}
