import PushMockStore
package import Synchronization

/// A state archive in memory that counts what is written to it.
package final class CountingArchive: StateArchive {
    package init() {}

    package let values = Mutex<[String: [UInt8]]>([:])
    package let written = Atomic<Int>(0)

    package func archived(_ key: String) throws -> [UInt8]? { values.withLock { $0[key] } }
    package func archived(prefix: String) throws -> [String: [UInt8]] { values.withLock { $0.filter { $0.key.hasPrefix(prefix) } } }
    package func archive(_ key: String, _ value: [UInt8]) {
        written.add(key.utf8.count + value.count, ordering: .relaxed)
        values.withLock { $0[key] = value.isEmpty ? nil : value }
    }
}
