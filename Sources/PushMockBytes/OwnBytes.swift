/// Bytes in one allocation with their count, written once and then only read (a delivery's own
/// packed part). An `[UInt8]` made for the same bytes asks malloc for the block's usable size on
/// every push (Swift records an array's real capacity); nothing here ever needs it.
///
/// ```swift
/// let own = OwnBytes.make(count: 3) { out in out.put(7); out.put(7); out.put(7) }
/// own.withByteView { $0.count }   // 3
/// ```
public struct OwnBytes: @unchecked Sendable {  // immutable once made
    private final class Storage: ManagedBuffer<Int, UInt8> {}

    private let storage: Storage

    private init(_ storage: Storage) {
        self.storage = storage
    }

    /// `count` bytes, written by `write`, which must write exactly that many.
    public static func make(count: Int, _ write: (inout ByteWriter) -> Void) -> OwnBytes {
        let storage = unsafeDowncast(Storage.create(minimumCapacity: count) { _ in count }, to: Storage.self)
        storage.withUnsafeMutablePointerToElements { base in
            var writer = ByteWriter(base: base, capacity: count)
            write(&writer)
            precondition(writer.count == count, "OwnBytes: wrote \(writer.count) of \(count) bytes")
        }
        return OwnBytes(storage)
    }

    /// A copy of `bytes`.
    public static func copying(_ bytes: [UInt8]) -> OwnBytes {
        make(count: bytes.count) { $0.put(bytes) }
    }

    /// How many bytes.
    public var count: Int { storage.header }

    /// Calls `body` with a view of the bytes.
    public func withByteView<R>(_ body: (ByteView) throws -> R) rethrows -> R {
        try storage.withUnsafeMutablePointers { count, base in try body(ByteView(UnsafeBufferPointer(start: base, count: count.pointee))) }
    }

    /// The bytes as an array.
    public var array: [UInt8] { withByteView(\.array) }
}

/// Calls `body` with `capacity` bytes of temporary memory (on the stack when small) written by
/// `write`: as many as it wrote.
@inlinable
public func withTemporaryBytes<R>(capacity: Int, writing write: (inout ByteWriter) -> Void, _ body: (ByteView) throws -> R) rethrows -> R {
    try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(capacity, 1)) { buffer in
        var writer = ByteWriter(base: buffer.baseAddress!, capacity: capacity)
        write(&writer)
        return try body(ByteView(UnsafeBufferPointer(start: buffer.baseAddress, count: writer.count)))
    }
}
