/// A store that also keeps the server's state (devices, faults) across restarts, as snapshots by
/// key. Saving never blocks: the newest snapshot of each key is written behind, in order.
public protocol StateArchive: Sendable {
    /// The snapshot saved under `key`, if any.
    func archived(_ key: String) throws -> [UInt8]?
    /// Saves `value` as the snapshot of `key` (written behind; a newer one replaces one not yet written).
    func archive(_ key: String, _ value: [UInt8])
}

/// A state archive that several PushMocks share (PostgreSQL): a snapshot saved by another instance
/// is handed to `observer`, which applies it.
public protocol SharedStateArchive: StateArchive {
    /// Calls `observer` with each snapshot another instance saves, by key.
    func observeState(_ observer: @escaping @Sendable (String, [UInt8]) -> Void)
}
