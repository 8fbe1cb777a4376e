import PushMockStore
import Synchronization

/// Server state snapshots (devices, faults) kept in the same file, written behind.
extension SQLiteDeliveryStore {
    public func archived(_ key: String) throws -> [UInt8]? {
        try pool.read { db in
            var value: [UInt8]?
            try db.forEachRow("SELECT value FROM server_state WHERE key = ?", [.text(key)]) { row in
                value = row.blob(0)
                return false
            }
            return value
        }
    }

    public func archived(prefix: String) throws -> [String: [UInt8]] {
        try pool.read { db in
            var found: [String: [UInt8]] = [:]
            // Keys are compared as text (`LIKE` would read `_` and `%` in a key as patterns).
            try db.forEachRow("SELECT key, value FROM server_state WHERE substr(key, 1, ?) = ?", [.integer(Int64(prefix.count)), .text(prefix)]) {
                row in
                if let key = row.text(0) { found[key] = row.blob(1) ?? [] }
                return true
            }
            return found
        }
    }

    public func archive(_ key: String, _ value: [UInt8]) {
        snapshots.withLock { snapshots in
            snapshots.pending[key] = value
            guard snapshots.writer == nil else { return }
            snapshots.writer = Task { await self.writeSnapshots() }
        }
    }

    /// How long the writer gathers snapshots before it writes them in one transaction. A page is
    /// 64 KiB, and a transaction writes each page it touches whole (to the WAL, then again at the
    /// checkpoint): a Live Activity update on its own cost about 116 KB where an alert of the same
    /// size, written in a batch, costs 5 KB. A close waits for it (50 ms more at most).
    static let snapshotGathering: Duration = .milliseconds(50)

    /// Writes the newest snapshots until none is waiting.
    private func writeSnapshots() async {
        while true {
            try? await Task.sleep(for: Self.snapshotGathering)
            let batch = snapshots.withLock { snapshots -> [String: [UInt8]] in
                defer { snapshots.pending = [:] }
                if snapshots.pending.isEmpty { snapshots.writer = nil }
                return snapshots.pending
            }
            if batch.isEmpty { return }
            do {
                try await pool.write { db in
                    for (key, value) in batch {
                        if value.isEmpty {
                            try db.execute("DELETE FROM server_state WHERE key = ?", [.text(key)])
                            continue
                        }
                        try db.execute(
                            "INSERT INTO server_state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                            [.text(key), .blob(value)]
                        )
                    }
                }
            } catch {
                // Kept for the next round unless a newer snapshot replaced it meanwhile.
                snapshots.withLock { snapshots in
                    for (key, value) in batch where snapshots.pending[key] == nil { snapshots.pending[key] = value }
                    queue.noteFailure("\(error)")
                }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }
}
