/// A table made once and kept for the life of the process (a schema's fields, a lookup table),
/// read without an array's retain and uniqueness checks on the hot path. It is never freed.
@frozen
public struct ImmortalBuffer<Element>: RandomAccessCollection, @unchecked Sendable {  // immutable
    @usableFromInline
    let buffer: UnsafeBufferPointer<Element>

    /// A copy of `elements` that lives as long as the process.
    public init(_ elements: [Element]) {
        let memory = UnsafeMutableBufferPointer<Element>.allocate(capacity: Swift.max(elements.count, 1))
        _ = memory.initialize(from: elements)
        buffer = UnsafeBufferPointer(rebasing: memory[0..<elements.count])
    }

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { buffer.count }

    @inlinable
    public subscript(position: Int) -> Element { buffer[position] }
}

extension ImmortalBuffer where Element == UInt8 {
    /// The bytes in `range` (which stay valid: the buffer is never freed).
    @inlinable
    public func view(_ range: Range<Int>) -> ByteView {
        ByteView(buffer).view(range)
    }
}

/// Integers kept by an owner between calls and handed to each call as ``ScratchInts`` (a
/// validator's per-field slots, reused by one connection's requests). Not thread-safe: one owner,
/// one thread at a time.
public final class IntSlots: @unchecked Sendable {
    /// The integers (valid while this object lives).
    public let ints: ScratchInts

    public init(count: Int) {
        ints = ScratchInts(.allocate(capacity: count))
    }

    deinit {
        ints.buffer.deallocate()
    }
}

/// Integers owned by an ``IntSlots``: indexed like an array, checked in debug builds.
@frozen
public struct ScratchInts {
    @usableFromInline
    let buffer: UnsafeMutableBufferPointer<Int>

    @inlinable
    init(_ buffer: UnsafeMutableBufferPointer<Int>) {
        self.buffer = buffer
    }

    @inlinable public var count: Int { buffer.count }

    @inlinable
    public subscript(index: Int) -> Int {
        get { buffer[index] }
        nonmutating set { buffer[index] = newValue }
    }

    /// Sets every integer to `value`.
    @inlinable
    public func fill(_ value: Int) {
        buffer.initialize(repeating: value)
    }
}
