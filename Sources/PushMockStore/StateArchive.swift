/// A store that also keeps the server's state (devices, faults, simulated activities, broadcast
/// channels) across restarts, as snapshots by key. Saving never blocks: the newest snapshot of
/// each key is written behind, in order. An empty snapshot deletes the key.
public protocol StateArchive: Sendable {
    /// The snapshot saved under `key`, if any.
    func archived(_ key: String) throws -> [UInt8]?
    /// Every snapshot whose key starts with `prefix` (one per activity, say), by key.
    func archived(prefix: String) throws -> [String: [UInt8]]
    /// Saves `value` as the snapshot of `key` (written behind; a newer one replaces one not yet
    /// written); an empty `value` deletes it.
    func archive(_ key: String, _ value: [UInt8])
}

/// A state archive that several PushMocks share (PostgreSQL): a snapshot saved by another instance
/// is handed to `observer`, which applies it.
public protocol SharedStateArchive: StateArchive {
    /// Calls `observer` with each snapshot another instance saves, by key (empty: deleted).
    func observeState(_ observer: @escaping @Sendable (String, [UInt8]) -> Void)
}
