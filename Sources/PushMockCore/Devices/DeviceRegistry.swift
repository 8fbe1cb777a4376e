import Synchronization

/// Device tokens with a known state, shared by every connection (APNs and FCM).
public final class DeviceRegistry: Sendable {
    private let records = Mutex<[String: DeviceRecord]>([:])
    /// When closed, tokens without a record are `BadDeviceToken`.
    public let closed: Bool

    /// Creates a registry.
    public init(closed: Bool = false, records: [String: DeviceRecord] = [:]) {
        self.closed = closed
        self.records.withLock { $0 = Dictionary(uniqueKeysWithValues: records.map { (Self.key($0.key), $0.value) }) }
    }

    /// Tokens are compared case-insensitively (uppercase hex from clients is common).
    static func key(_ token: String) -> String { token.lowercased() }

    /// The record of `token`, if any.
    public func record(for token: String) -> DeviceRecord? {
        records.withLock { $0.isEmpty ? nil : $0[Self.key(token)] }
    }

    /// Sets or replaces a record.
    public func set(_ record: DeviceRecord, for token: String) {
        records.withLock { $0[Self.key(token)] = record }
    }

    /// Removes a record.
    @discardableResult
    public func remove(_ token: String) -> DeviceRecord? {
        records.withLock { $0.removeValue(forKey: Self.key(token)) }
    }

    /// The tokens (lowercased) whose record says their app is running.
    public func appsRunning() -> Set<String> {
        records.withLock { records in Set(records.lazy.filter { $0.value.appRunning == true }.map(\.key)) }
    }

    /// Every record.
    public var all: [String: DeviceRecord] { records.withLock { $0 } }
}
