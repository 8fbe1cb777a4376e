/// A delivery's own packed bytes (``CompactDelivery``), in one allocation with its count, written
/// once and then only read. An `[UInt8]` made for the same bytes asks malloc for the block's usable
/// size on every push (Swift records an array's real capacity); nothing here ever needs it.
///
/// ```swift
/// let own = OwnBytes.make(count: 3) { base in base.initialize(repeating: 7, count: 3) }
/// own.withUnsafeBufferPointer { $0.count }   // 3
/// ```
package struct OwnBytes: @unchecked Sendable {  // immutable once made
    private final class Storage: ManagedBuffer<Int, UInt8> {}

    private let storage: Storage

    private init(_ storage: Storage) {
        self.storage = storage
    }

    /// Bytes of `count`, written by `write` (which must initialise all of them) before anyone
    /// reads them.
    package static func make(count: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Void) -> OwnBytes {
        let storage = unsafeDowncast(Storage.create(minimumCapacity: count) { _ in count }, to: Storage.self)
        storage.withUnsafeMutablePointerToElements { write($0) }
        return OwnBytes(storage)
    }

    /// A copy of `bytes`.
    package static func copying(_ bytes: [UInt8]) -> OwnBytes {
        bytes.withUnsafeBufferPointer { source in
            make(count: source.count) { base in
                if let start = source.baseAddress { base.initialize(from: start, count: source.count) }
            }
        }
    }

    /// How many bytes.
    package var count: Int { storage.header }

    package func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try storage.withUnsafeMutablePointers { count, base in try body(UnsafeBufferPointer(start: base, count: count.pointee)) }
    }

    /// The bytes as an array.
    package var array: [UInt8] { withUnsafeBufferPointer { Array($0) } }
}
