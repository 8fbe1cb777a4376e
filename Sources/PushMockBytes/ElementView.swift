/// The elements of an array read in place, without retaining each as it is read.
@frozen
public struct ElementView<Element>: RandomAccessCollection {
    @usableFromInline
    let buffer: UnsafeBufferPointer<Element>

    @inlinable
    init(_ buffer: UnsafeBufferPointer<Element>) {
        self.buffer = buffer
    }

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { buffer.count }

    @inlinable
    public subscript(position: Int) -> Element {
        _read { yield buffer[position] }
    }
}

extension Array {
    /// Calls `body` with the elements read in place.
    @inlinable
    public func withElementView<Result>(_ body: (ElementView<Element>) throws -> Result) rethrows -> Result {
        try withUnsafeBufferPointer { try body(ElementView($0)) }
    }
}

extension String {
    /// Whether the two strings have the same UTF-8 bytes: at once when they are the same value
    /// bit for bit (the same small string, or the same storage), else compared in place.
    @inlinable @inline(__always)
    public func hasSameUTF8(as other: String) -> Bool {
        if unsafeBitCast(self, to: (UInt64, UInt64).self) == unsafeBitCast(other, to: (UInt64, UInt64).self) { return true }
        let compared = utf8.withContiguousStorageIfAvailable { x in
            other.utf8.withContiguousStorageIfAvailable { y in ByteView(x).equals(ByteView(y)) }
        }
        return (compared ?? nil) ?? utf8.elementsEqual(other.utf8)
    }
}

extension Optional where Wrapped == String {
    /// Whether both are nil, or both are strings with the same UTF-8 bytes
    /// (``Swift/String/hasSameUTF8(as:)``).
    @inlinable @inline(__always)
    public func hasSameUTF8(as other: String?) -> Bool {
        switch (self, other) {
        case (nil, nil): true
        case (let a?, let b?): a.hasSameUTF8(as: b)
        default: false
        }
    }
}
